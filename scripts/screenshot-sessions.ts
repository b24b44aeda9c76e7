/**
 * The recorded sessions `npm run screenshots` shows: a conversation with thinking, tool calls, a table and code
 * (with a branch it left and a label, for the session tree); a fork of it; a named session; two sessions with
 * the same title; one from another project. Written as pi v3 session files (what skiff lists and opens), timed
 * relative to now so the list reads naturally.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const MINUTE = 60_000;
const USAGE = { input: 900, output: 300, cacheRead: 0, cacheWrite: 0, totalTokens: 1200, cost: { input: 0.0027, output: 0.0045, cacheRead: 0, cacheWrite: 0, total: 0.0072 } };

type Content = Array<Record<string, unknown>>;
export type Message = Record<string, unknown> & { role: string };

const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
export const assistant = (content: Content, stopReason = "stop"): Message => ({ role: "assistant", content, api: "openai-completions", provider: "fake", model: "fake-reasoner", usage: USAGE, stopReason });
const bash = (id: string, command: string): Record<string, unknown> => ({ type: "toolCall", id, name: "bash", arguments: { command } });
const result = (id: string, text: string): Message => ({ role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text }], isError: false });

const FINDINGS = `## Where the time goes

Three files account for **80 %** of the run:

| file | time | why |
|---|---|---|
| \`browser/chat.test.ts\` | 41 s | a fresh Chromium per file |
| \`integration/turn.test.ts\` | 27 s | the model's \`SLOW\` replies |
| \`unit/parser.test.ts\` | 19 s | fixtures rebuilt per test |

The browser tests start a new Chromium for every file. Sharing one browser per worker removes most of that:

\`\`\`ts
let browser: Browser | undefined;

/** One Chromium per test worker, started on first use. */
export async function sharedBrowser(): Promise<Browser> {
  browser ??= await launchBrowser();
  return browser;
}
\`\`\`

Next steps:

1. Share the browser between files.
2. Run the integration tests with \`--test-concurrency=4\`.
3. Cache the parser fixtures instead of rebuilding them.`;

const TIMINGS = [
	"ok 1 - test/unit/redact.test.ts # duration_ms 412",
	"ok 2 - test/unit/markdown.test.ts # duration_ms 655",
	"ok 3 - test/integration/sessions.test.ts # duration_ms 8120",
	"ok 4 - test/unit/parser.test.ts # duration_ms 19034",
	"ok 5 - test/integration/turn.test.ts # duration_ms 27311",
	"ok 6 - test/browser/chat.test.ts # duration_ms 41207",
].join("\n");

/** The main conversation: thinking, two tool calls, a table, code, a list. */
export const MAIN_CONVERSATION: Message[] = [
	user("The test suite takes almost two minutes. Can you find out where the time goes?"),
	assistant(
		[
			{ type: "thinking", thinking: "I should time each test file first, then look at the slowest ones. The spec reporter prints a duration per file." },
			{ type: "text", text: "Let me time each test file first." },
			bash("call-1", "node --test --test-reporter=tap test/ | grep duration_ms | sort -t' ' -k6 -n | tail -6"),
		],
		"toolUse",
	),
	result("call-1", TIMINGS),
	assistant([{ type: "text", text: FINDINGS }]),
	user("Do step 1, then run the browser tests again."),
	assistant([{ type: "text", text: "I'll move the browser into `test/support/browser.ts` and rerun them." }, bash("call-2", "npm test -- test/browser")], "toolUse"),
	result("call-2", "# tests 23\n# suites 0\n# pass 23\n# fail 0\n# cancelled 0\n# duration_ms 18204"),
	assistant([{ type: "text", text: "Done. `test/support/browser.ts` now keeps **one Chromium per worker**: the browser tests take 18 s instead of 41 s, and all 23 pass.\n\nWant me to try the integration tests with a higher concurrency next?" }]),
];

/** A branch the main conversation left: a different second question, asked after the findings. */
const SIDE_BRANCH: Message[] = [
	user("Try step 2 first: raise the test concurrency."),
	assistant([{ type: "text", text: "With `--test-concurrency=4` the integration tests take 14 s instead of 27 s, but two of them now fail: they share a port." }]),
];

export interface SessionSpec {
	id: string;
	name?: string;
	cwd: string;
	/** Minutes ago, for the first and the last message. */
	ago: [number, number];
	/** Minutes ago the session was created, when not with its first message (a fork keeps its messages' times). */
	createdAgo?: number;
	messages: Message[];
	parent?: string;
	/** Messages of another branch, hung under message `at` (the conversation goes on from that message too). */
	branch?: { at: number; messages: Message[] };
	/** Labels of messages (by index), recorded at the end as pi records them. */
	labels?: Array<{ at: number; label: string }>;
}

/** Writes the sessions into `agentDir` and returns the main session's id. */
export function writeScreenshotSessions(agentDir: string, cwd: string, otherCwd: string): { main: string } {
	const main = "a1f3c9e2-5b7d-4e8a-9c21-6d0f4b8e7a13";
	const mainPath = sessionPath(agentDir, cwd, main, 45);
	const specs: SessionSpec[] = [
		{ id: main, name: "Speed up the test suite", cwd, ago: [45, 12], messages: MAIN_CONVERSATION, branch: { at: 3, messages: SIDE_BRANCH }, labels: [{ at: 3, label: "findings" }] },
		{ id: "b7e2d4f1-0c3a-4b9e-8f56-2a1d9c7e4b30", cwd, ago: [45, 33], createdAgo: 3, messages: MAIN_CONVERSATION.slice(0, 4), parent: mainPath },
		{ id: "c4a8e6b2-9d1f-4c7a-b3e5-8f2d6a0c1e97", name: "Fix the flaky reconnect test", cwd, ago: [190, 180], messages: [user("The reconnect test fails about once in twenty runs. Why?"), assistant([{ type: "text", text: "It waits a fixed 500 ms for the retry. I'll make it wait for the socket to close instead." }])] },
		{ id: "d9b1f7a3-2e6c-4d8b-a0f4-7c3e5b9d2a68", cwd, ago: [1500, 1490], messages: [user("Add a dark theme to the web page"), assistant([{ type: "text", text: "The page already uses CSS variables, so a `prefers-color-scheme: dark` block is enough." }])] },
		{ id: "e2c6a0d8-7f4b-4a1e-9d35-0b8f2c6e4a91", cwd, ago: [4400, 4390], messages: [user("Add a dark theme to the web page"), assistant([{ type: "text", text: "Which colours should the code blocks use?" }])] },
		{ id: "f5d3b9e7-1a8c-4f2d-b6e0-3c9a7d1f5b24", name: "Landing page copy", cwd: otherCwd, ago: [9000, 8990], messages: [user("Tighten the hero text."), assistant([{ type: "text", text: "Here is a shorter version." }])] },
	];
	for (const spec of specs) writeSession(agentDir, spec, spec.id === main ? mainPath : undefined);
	return { main };
}

function sessionPath(agentDir: string, cwd: string, id: string, minutesAgo: number): string {
	const dir = join(agentDir, "sessions", `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`);
	mkdirSync(dir, { recursive: true });
	return join(dir, `${new Date(Date.now() - minutesAgo * MINUTE).toISOString().replace(/[:.]/g, "-")}_${id}.jsonl`);
}

export function writeSession(agentDir: string, spec: SessionSpec, path = sessionPath(agentDir, spec.cwd, spec.id, spec.createdAgo ?? spec.ago[0])): void {
	const [first, last] = spec.ago;
	const start = Date.now() - first * MINUTE;
	const created = Date.now() - (spec.createdAgo ?? first) * MINUTE;
	const step = spec.messages.length > 1 ? ((first - last) * MINUTE) / (spec.messages.length - 1) : 0;
	const header = { type: "session", version: 3, id: spec.id, timestamp: new Date(created).toISOString(), cwd: spec.cwd, ...(spec.parent ? { parentSession: spec.parent } : {}) };
	const lines = [JSON.stringify(header)];
	let parentId: string | null = null;
	const idOf = (n: number) => `${spec.id.slice(0, 4)}${n.toString(16).padStart(4, "0")}`;
	spec.messages.forEach((message, n) => {
		const timestamp = Math.round(start + n * step);
		const id = idOf(n);
		lines.push(JSON.stringify({ type: "message", id, parentId, timestamp: new Date(timestamp).toISOString(), message: { ...message, timestamp } }));
		parentId = id;
		// The other branch is written before the conversation goes on, so the file's last entry stays on the main one.
		if (spec.branch?.at === n) {
			let branchParent = id;
			spec.branch.messages.forEach((other, b) => {
				const otherId = `${spec.id.slice(0, 4)}b${b.toString(16).padStart(3, "0")}`;
				lines.push(JSON.stringify({ type: "message", id: otherId, parentId: branchParent, timestamp: new Date(timestamp + (b + 1) * 1000).toISOString(), message: { ...other, timestamp: timestamp + (b + 1) * 1000 } }));
				branchParent = otherId;
			});
		}
	});
	for (const [k, { at, label }] of (spec.labels ?? []).entries()) {
		const id = `${spec.id.slice(0, 4)}l${k.toString(16).padStart(3, "0")}`;
		lines.push(JSON.stringify({ type: "label", id, parentId, timestamp: new Date(Date.now() - spec.ago[1] * MINUTE).toISOString(), targetId: idOf(at), label }));
		parentId = id;
	}
	if (spec.name) lines.push(JSON.stringify({ type: "session_info", id: `${spec.id.slice(0, 4)}ffff`, parentId, timestamp: new Date(start).toISOString(), name: spec.name }));
	writeFileSync(path, `${lines.join("\n")}\n`);
}
