/**
 * The todo plan and the session goal `npm run screenshots` shows: appended to a recorded session as the custom
 * entries Skiff itself writes (`skiff.todo` plan snapshots, `skiff.goal` journal events), so the panels read
 * them exactly as they would read a real session's: a plan of three phases in every state, with dependencies
 * and blockers, and a goal with a budget, pins and the usage of a few turns.
 */
import { appendFileSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const MINUTE = 60_000;

const task = (id: string, content: string, status: string, dependsOn: string[] = []) => ({ id, content, status, dependsOn });

const PLAN = {
	phases: [
		{ name: "Measure", tasks: [task("t1", "Time every test file", "completed"), task("t2", "Find the three slowest files", "completed", ["t1"])] },
		{
			name: "Speed up",
			tasks: [
				task("t3", "Share one Chromium per worker", "completed", ["t2"]),
				task("t4", "Run the integration tests with --test-concurrency=4", "in_progress", ["t2"]),
				task("t5", "Cache the parser fixtures", "pending", ["t2"]),
				task("t6", "Drop the SLOW replies from the turn tests", "abandoned", ["t2"]),
			],
		},
		{ name: "Check", tasks: [task("t7", "Run the whole suite twice on CI", "pending", ["t3", "t4", "t5"]), task("t8", "Write the timings into the PR", "pending", ["t7"])] },
	],
	nextId: 9,
};

const GOAL_CHANGES: Array<{ ago: number; change: Record<string, unknown> }> = [
	{ ago: 44, change: { kind: "created", id: "goal-7f3a9c21", objective: "Get `npm test` under 60 s on the CI runner, without skipping or weakening any test.", tokenBudget: 150_000 } },
	{ ago: 43, change: { kind: "pinned", text: "Never skip a test to save time" } },
	{ ago: 43, change: { kind: "pinned", text: "CI runner: 2 cores, 7 GB of memory" } },
	{ ago: 38, change: { kind: "usage", tokens: 18_420, wallTimeMs: 95_000 } },
	{ ago: 30, change: { kind: "usage", tokens: 22_900, wallTimeMs: 140_000 } },
	{ ago: 25, change: { kind: "pinned", text: "Keep one Chromium per worker: each test still gets a fresh context" } },
	{ ago: 13, change: { kind: "usage", tokens: 19_870, wallTimeMs: 120_000 } },
];

/** Appends the plan and the goal's journal to session `id` (in `agentDir`), continuing its branch. */
export function appendScreenshotPlan(agentDir: string, id: string): void {
	const path = findSession(join(agentDir, "sessions"), id);
	const lines = readFileSync(path, "utf8").trim().split("\n");
	let parentId = (JSON.parse(lines.at(-1)!) as { id: string }).id;
	const entries: string[] = [];
	const append = (ago: number, customType: string, data: unknown) => {
		const entryId = `${id.slice(0, 4)}c${entries.length.toString(16).padStart(3, "0")}`;
		entries.push(JSON.stringify({ type: "custom", customType, data, id: entryId, parentId, timestamp: new Date(Date.now() - ago * MINUTE).toISOString() }));
		parentId = entryId;
	};
	GOAL_CHANGES.forEach(({ ago, change }, n) => append(ago, "skiff.goal", { version: 1, event: { revision: n + 1, at: new Date(Date.now() - ago * MINUTE).toISOString(), change } }));
	append(12, "skiff.todo", { version: 1, plan: PLAN });
	appendFileSync(path, `${entries.join("\n")}\n`);
}

function findSession(dir: string, id: string): string {
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) {
			try {
				return findSession(path, id);
			} catch {
				continue;
			}
		}
		if (entry.name.endsWith(`_${id}.jsonl`)) return path;
	}
	throw new Error(`no session file for ${id} under ${dir}`);
}
