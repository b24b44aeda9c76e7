/**
 * Hanging git hooks: workflows against repositories whose hooks are slow, hang or refuse, while a client in a
 * process of its own pings back to back; then signals while a workflow integrates (SIGINT to skiff's process
 * group, SIGTERM twice, SIGKILL to skiff and git), at a fixed point (a hook holding the fast-forward of main)
 * or at a random moment (slow hooks on every ref), each followed by a restart.
 *
 * A failure: a ping that fails or takes as long as the git timeout (a loop held by git); a base left
 * half-merged (anything staged, changed or left untracked) or with main anywhere but where it was or at the
 * integrated commit; a workflow still `integrating` after a restart; an outcome other than the one the hook
 * calls for; a workflow that does not complete once its hook is gone (after the lock files named in its
 * reason are removed with the command given there).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { groupAlive } from "../../src/shared/process-group.js";
import { writeFakeModelsJson } from "../../test/support/fake-openai.js";
import { alive, baseRepository, holdMoves, onMove, processGroupOf, removeTempRepos, sh, useHooks } from "../../test/support/git-repo.js";
import { type SkiffProcess, startSkiff, tempDir } from "../../test/support/skiff-process.js";
import { until } from "../../test/support/until.js";
import { objective, sessionIn, writes } from "../../test/support/workflow-client.js";
import { TestClient } from "../../test/support/ws-client.js";
import { startFakeModelProcess } from "../fake-model.js";
import { startPinger } from "../pinger.js";
import { fmt, maxOf, pct, type ScenarioResult } from "../result.js";

export interface GitHookOptions {
	/** Rounds of signals during integration (cycling through the three signals, held and at random). */
	signalRounds: number;
}

/** The git timeout the hanging hooks run into here (the slow ones stay well within it, even on a busy machine). */
const GIT_TIMEOUT_MS = 3_000;
/**
 * A ping as slow as this means git held the event loop (a hanging hook would hold it for the whole timeout);
 * slower pings short of it are counted in the figures (a shared machine, a disk flush).
 */
const PING_LIMIT_MS = GIT_TIMEOUT_MS;
/** Pings slower than this are counted. */
const SLOW_PING_MS = 100;
const SIGNALS = ["SIGINT to the group", "SIGTERM twice", "SIGKILL to skiff and git"] as const;
type SignalKind = (typeof SIGNALS)[number];
/** In random rounds, the signal comes this long (uniformly random, ms) after the workflow starts integrating. */
const RANDOM_WINDOW_MS = [0, 800] as const;

/** What each hook does to a one-task workflow, and what must come of it. */
const HOOK_CASES: Array<{ name: string; hooks: Record<string, string>; expect: "completed" | "create fails" | "conflicted" }> = [
	{ name: "slow reference-transaction (every ref)", hooks: { "reference-transaction": "cat >/dev/null\nsleep 0.1" }, expect: "completed" },
	{ name: "hanging post-checkout", hooks: { "post-checkout": "exec sleep 60" }, expect: "create fails" },
	{ name: "hanging reference-transaction (main)", hooks: { "reference-transaction": onMove("exec sleep 60") }, expect: "conflicted" },
	{ name: "refusing reference-transaction (main)", hooks: { "reference-transaction": onMove("exit 1") }, expect: "conflicted" },
	{ name: "hanging post-merge", hooks: { "post-merge": "exec sleep 60" }, expect: "completed" },
];

export async function hangingGitHook(options: GitHookOptions): Promise<ScenarioResult> {
	const model = await startFakeModelProcess();
	const failures: string[] = [];
	const outcomes: Record<string, number> = {};
	let pings = { ms: [] as number[], failures: 0 };
	try {
		pings = await hooksWhilePinging(model.url, failures);
		for (let round = 0; round < options.signalRounds; round++) {
			const signal = SIGNALS[round % SIGNALS.length]!;
			const held = Math.floor(round / SIGNALS.length) % 2 === 0;
			try {
				const outcome = await signalDuringIntegration(model.url, signal, held);
				const key = `${signal}${held ? " (held)" : " (random)"}: ${outcome}`;
				outcomes[key] = (outcomes[key] ?? 0) + 1;
			} catch (error) {
				failures.push(`round ${round + 1} (${signal}, ${held ? "held" : "random"}): ${error instanceof Error ? error.message : String(error)}`);
			}
		}
	} finally {
		model.close();
		removeTempRepos();
	}
	const slow = pings.ms.filter((ms) => ms > PING_LIMIT_MS).length;
	if (pings.failures) failures.push(`${pings.failures} pings failed while hooks hung`);
	if (slow) failures.push(`${slow} pings took over ${PING_LIMIT_MS} ms while hooks hung`);
	return {
		name: "hanging git hook",
		tried: `one-task workflows against repositories whose hooks are slow, hang or refuse (${HOOK_CASES.map((c) => c.name).join(", ")}; git timeout ${fmt(GIT_TIMEOUT_MS / 1000, 1)} s) while a client pings from a process of its own; then a signal while a workflow integrates (${SIGNALS.join(", ")}), at a hook holding main's fast-forward or at a random moment under slow hooks, a restart, and integrating again`,
		count: `${HOOK_CASES.length} hook cases, ${pings.ms.length} pings; ${options.signalRounds} signal rounds`,
		failures,
		figure: `ping while hooks hung p50 ${fmt(pct(pings.ms, 0.5), 1)}, p99 ${fmt(pct(pings.ms, 0.99), 1)}, max ${fmt(maxOf(pings.ms), 1)} ms, ${pings.ms.filter((ms) => ms > SLOW_PING_MS).length} over ${SLOW_PING_MS} ms; after the signals: ${Object.entries(outcomes)
			.map(([key, n]) => `${key} × ${n}`)
			.join("; ")}`,
	};
}

/** Every hook case in turn against one skiff, with the pinger running throughout. */
async function hooksWhilePinging(modelUrl: string, failures: string[]): Promise<{ ms: number[]; failures: number }> {
	const agentDir = tempDir("skiff-stress-");
	writeFakeModelsJson(agentDir, modelUrl);
	const skiff = await startSkiff({ agentDir, cwd: tempDir("skiff-stress-cwd-"), args: ["--model", "fake/fake-model"], env: { SKIFF_GIT_TIMEOUT_MS: String(GIT_TIMEOUT_MS) } });
	await skiff.ready;
	const pinger = await startPinger(skiff.wsUrl);
	try {
		const client = await TestClient.connect(skiff.wsUrl);
		for (const hookCase of HOOK_CASES) {
			try {
				await oneHookCase(client, agentDir, hookCase);
			} catch (error) {
				failures.push(`${hookCase.name}: ${error instanceof Error ? error.message : String(error)}`);
			}
		}
		client.close();
		return await pinger.stop();
	} finally {
		await skiff.stop();
		rmSync(agentDir, { recursive: true, force: true });
	}
}

async function oneHookCase(client: TestClient, agentDir: string, hookCase: (typeof HOOK_CASES)[number]): Promise<void> {
	const repo = baseRepository();
	const before = sh(repo, "rev-parse", "main").trim();
	useHooks(repo, hookCase.hooks);
	const sessionId = await sessionIn(client, repo);
	const list = [{ phase: "Work", items: [writes("w.txt", "done\n")] }];
	const created = await client.request({ type: "workflow_create", sessionId, name: "hooked", objective: objective(list) }, 60_000);
	if (hookCase.expect === "create fails") {
		if (created.success || !/timed out after/.test(created.error ?? "")) throw new Error(`workflow_create answered ${JSON.stringify(created).slice(0, 300)}`);
		if (sh(repo, "branch", "--list", "skiff/*") !== "") throw new Error("a branch of the failed workflow was left");
		return;
	}
	if (!created.success) throw new Error(`workflow_create failed: ${created.error}`);
	const id = (created.data as { workflow: { id: string } }).workflow.id;
	const settled = await waitForRecord(agentDir, id, (status) => ["completed", "conflicted", "failed"].includes(status));
	checkBase(repo, before, settled.status === "completed" ? "moved" : "not moved");
	if (settled.status !== hookCase.expect) throw new Error(`ended ${settled.status} (${settled.reason}), not ${hookCase.expect}`);
	if (settled.status === "conflicted") {
		sh(repo, "config", "--unset", "core.hooksPath");
		const again = await client.ok({ type: "workflow_integrate", workflowId: id }, 60_000);
		if (again.workflow.status !== "completed") throw new Error(`integrating again without the hook: ${again.workflow.status} (${again.workflow.reason})`);
	}
	if (readFileSync(join(repo, "w.txt"), "utf8") !== "done\n") throw new Error("the base does not have the workflow's work");
}

/**
 * One workflow in a repository whose hooks hold (or slow down) the move of main; a signal while it integrates,
 * a restart, and integrating again. Resolves with how the workflow was found after the restart.
 */
async function signalDuringIntegration(modelUrl: string, signal: SignalKind, held: boolean): Promise<string> {
	const repo = baseRepository();
	const before = sh(repo, "rev-parse", "main").trim();
	const hooks = tempDir("skiff-stress-hooks-");
	const pids = join(hooks, "pids");
	const hold = held ? holdMoves(repo) : undefined;
	if (!hold) useHooks(repo, { "reference-transaction": `cat >/dev/null\necho $$ >> '${pids}'\nsleep 0.1` });
	const agentDir = tempDir("skiff-stress-");
	writeFakeModelsJson(agentDir, modelUrl);
	const start = () => startSkiff({ agentDir, cwd: repo, args: ["--model", "fake/fake-model"], ownGroup: true });
	let skiff = await start();
	let id: string;
	try {
		const client = await TestClient.connect(skiff.wsUrl);
		const sessionId = await sessionIn(client, repo);
		const list = [{ phase: "Work", items: [writes("w.txt", "done\n")] }];
		const from = client.events.length;
		id = (await client.ok({ type: "workflow_create", sessionId, name: "signalled", objective: objective(list) })).workflow.id;
		if (hold) await until(() => existsSync(hold.pidFile) && readFileSync(hold.pidFile, "utf8").trim() !== "", "the hook to hold main's move");
		else {
			await client.waitForEvent((e) => e.type === "workflow_updated" && e.workflow.id === id && e.workflow.status === "integrating", 60_000, from);
			await new Promise((resolve) => setTimeout(resolve, RANDOM_WINDOW_MS[0] + Math.random() * (RANDOM_WINDOW_MS[1] - RANDOM_WINDOW_MS[0])));
		}
		client.close();
		const gitGroups = held ? [processGroupOf(hold!.pid())] : runningGroups(pids);
		if (signal === "SIGINT to the group") {
			const exited = skiff.signalGroup("SIGINT");
			await until(() => skiff.stderr().includes("SIGINT: stopping") || skiff.child.exitCode !== null, "skiff to start stopping");
			hold?.release();
			if ((await exited) !== 0) throw new Error(`skiff exited ${skiff.child.exitCode} after SIGINT: ${skiff.stderr().slice(-300)}`);
		} else if (signal === "SIGTERM twice") {
			const exited = skiff.signalGroup("SIGTERM");
			await until(() => skiff.stderr().includes("SIGTERM: stopping") || skiff.child.exitCode !== null, "skiff to start stopping");
			void skiff.signalGroup("SIGTERM");
			await exited;
		} else {
			await skiff.stop("SIGKILL");
			for (const group of gitGroups) killGroup(group);
		}
		await until(() => gitGroups.every((group) => !groupAlive(group)), "git to be gone");
	} finally {
		await skiff.stop("SIGKILL");
	}

	// The next start settles whatever the signal left.
	skiff = await start();
	try {
		const found = await waitForRecord(agentDir, id, (status) => status !== "integrating" && status !== "running");
		const main = sh(repo, "rev-parse", "main").trim();
		checkBase(repo, before, found.status === "completed" ? "moved" : "not moved");
		hold?.release();
		sh(repo, "config", "--unset", "core.hooksPath");
		const client = await TestClient.connect(skiff.wsUrl);
		if (found.status !== "completed") {
			const rm = /(rm -f [^;]+);/.exec(found.reason ?? "")?.[1];
			if (rm) execFileSync("sh", ["-c", rm]);
			const again = await client.ok({ type: "workflow_integrate", workflowId: id }, 60_000);
			if (again.workflow.status !== "completed") throw new Error(`integrating again after ${signal}: ${again.workflow.status} (${again.workflow.reason})`);
		}
		client.close();
		if (readFileSync(join(repo, "w.txt"), "utf8") !== "done\n") throw new Error("the base does not have the workflow's work");
		checkBase(repo, before, "moved");
		return `${found.status}${main === before ? "" : " (main had moved)"}${/rm -f/.test(found.reason ?? "") ? ", locks named" : ""}`;
	} finally {
		await skiff.stop();
		rmSync(agentDir, { recursive: true, force: true });
	}
}

/** Throws unless the base is clean and main is where it was (`not moved`) or at the work (`moved`). */
function checkBase(repo: string, before: string, main: "moved" | "not moved"): void {
	const status = sh(repo, "status", "--porcelain", "--untracked-files=all");
	if (status !== "") throw new Error(`the base is half-merged: ${JSON.stringify(status)}`);
	const now = sh(repo, "rev-parse", "main").trim();
	if (main === "not moved" && now !== before) throw new Error(`main moved to ${now}`);
	if (main === "moved" && now === before) throw new Error("main did not move");
}

async function waitForRecord(agentDir: string, id: string, done: (status: string) => boolean): Promise<{ status: string; reason?: string }> {
	const path = join(agentDir, "workflows", id, "workflow.json");
	let record: { status: string; reason?: string } = { status: "?" };
	for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 50))) {
		record = JSON.parse(readFileSync(path, "utf8")).workflow;
		if (done(record.status)) return record;
	}
	throw new Error(`workflow ${id} still ${record.status} after 60 s (${record.reason})`);
}

/** The process groups of the hooks (each in its git's group) that still run. */
function runningGroups(pidFile: string): number[] {
	if (!existsSync(pidFile)) return [];
	const groups = new Set<number>();
	for (const line of readFileSync(pidFile, "utf8").split("\n")) {
		const pid = Number(line);
		if (pid && alive(pid)) {
			try {
				groups.add(processGroupOf(pid));
			} catch {
				// ended meanwhile
			}
		}
	}
	return [...groups];
}

function killGroup(group: number): void {
	try {
		process.kill(-group, "SIGKILL");
	} catch {
		// gone already
	}
}

