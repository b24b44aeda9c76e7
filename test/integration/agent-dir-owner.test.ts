/**
 * Two processes on one agent directory (issue 20, items 8 and 9): a second skiff (listener or `--mode rpc`)
 * used to start beside a running one and undo its work (its running jobs marked interrupted, its jobs.json
 * records erased, its loaded sessions pruned). Now the second is refused with a message naming the first,
 * before it prints any "listening" line; the directory is free again once the first has exited, cleanly or
 * by SIGKILL; and of processes started at the same instant exactly one runs.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { ReplyGate } from "../support/reply-gate.js";
import { startRpcProcess } from "../support/rpc-process.js";
import { launchSkiff, runSkiff, type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { TestClient } from "../support/ws-client.js";

let model: FakeOpenAiServer;
const gate = new ReplyGate();

before(async () => {
	model = await startFakeOpenAi({ onRequest: () => gate.held });
});

after(async () => {
	await model?.close();
});

function home(): { agentDir: string; cwd: string } {
	const agentDir = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	return { agentDir, cwd: tempDir() };
}

const ARGS = ["--model", "fake/fake-model"];
const ownerFile = (agentDir: string) => join(agentDir, "skiff.lock");
const owner = (agentDir: string) => JSON.parse(readFileSync(ownerFile(agentDir), "utf8"));

/** The refusal a second process gets while `pid` (reached as `how`) runs on `agentDir`. */
function refusal(pid: number, how: string, agentDir: string): RegExp {
	const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
	return new RegExp(`^skiff: another skiff \\(pid ${pid}, ${escape(how)}\\) uses the agent directory ${escape(agentDir)}; stop it, or set SKIFF_AGENT_DIR to another directory\\n$`);
}

/** Starts a listener on `agentDir` that must be refused: fails the test (stopping it) if it listens instead. */
async function refusedListener(agentDir: string, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
	const outcome = await launchSkiff({ agentDir, cwd, args: ARGS });
	if ("listening" in outcome) {
		await outcome.listening.stop();
		assert.fail(`a second skiff started on the agent directory: ${outcome.listening.banner}`);
	}
	return outcome.exited;
}

test("while a skiff runs a job, a second listener and a --mode rpc on its agent directory are refused, naming it; the job and the session are left alone", async () => {
	const { agentDir, cwd } = home();
	const first = await startSkiff({ agentDir, cwd, args: ARGS });
	const client = await TestClient.connect(first.wsUrl);
	const { sessionId, sessionFile } = await client.ok({ type: "get_state" });
	await client.turn(sessionId, "REPLY recorded"); // the session's file exists from its first message on
	const release = gate.hold();
	try {
		const { jobs } = await client.ok({ type: "task_spawn", sessionId, task: "REPLY the job's answer" });
		const jobId = jobs[0].id;
		await client.waitForEvent((e) => e.type === "job_updated" && e.job.id === jobId && e.job.status === "running" && e.job.sessionId !== undefined, 20_000);
		const running = () => JSON.parse(readFileSync(join(agentDir, "jobs", "jobs.json"), "utf8")).jobs.find((j: any) => j.id === jobId).status;
		assert.equal(running(), "running");

		const listener = await refusedListener(agentDir, cwd);
		assert.equal(listener.code, 1);
		assert.match(listener.stderr, refusal(first.child.pid!, `listening on ${first.url}`, agentDir));
		assert.equal(listener.stdout, "", "no banner, no \"listening\" line");

		const rpc = startRpcProcess({ agentDir, cwd, args: ARGS });
		rpc.send({ type: "sessions_prune", olderThanDays: 0.00001, dryRun: false, id: "prune" });
		assert.equal(await rpc.exited, 1);
		assert.match(rpc.stderr(), refusal(first.child.pid!, `listening on ${first.url}`, agentDir));
		assert.equal(rpc.stdout(), "", "nothing was answered: no command ran");
		assert.deepEqual([owner(agentDir).pid, owner(agentDir).url], [first.child.pid, first.url], "the record names the first");

		assert.equal(running(), "running", "the first's running job was not marked interrupted");
		assert.equal(existsSync(sessionFile), true, "the first's session was not pruned");
		const from = client.events.length;
		release();
		const done = await client.waitForEvent((e) => e.type === "job_updated" && e.job.id === jobId && ["completed", "failed", "cancelled", "interrupted"].includes(e.job.status), 20_000);
		assert.equal(done.job.status, "completed");
		await client.waitForEvent((e) => e.type === "agent_end" && e.sessionId === sessionId, 20_000, from); // the result woke the parent
		await client.turn(sessionId, "REPLY still recorded");
		assert.match(readFileSync(sessionFile, "utf8"), /still recorded/);
	} finally {
		release();
		client.close();
		assert.equal(await first.stop(), 0);
	}
	assert.equal(existsSync(ownerFile(agentDir)), false, "a clean exit gives the directory up");
});

test("while a --mode rpc runs, a listener on its agent directory is refused, naming it", async () => {
	const { agentDir, cwd } = home();
	const rpc = startRpcProcess({ agentDir, cwd, args: ARGS });
	try {
		await rpc.request({ type: "get_state" });
		const listener = await refusedListener(agentDir, cwd);
		assert.equal(listener.code, 1);
		assert.match(listener.stderr, refusal(rpc.child.pid!, "--mode rpc", agentDir));
	} finally {
		rpc.child.stdin.end();
	}
	assert.equal(await rpc.exited, 0);
	assert.equal(existsSync(ownerFile(agentDir)), false, "the end of its input is a clean exit: the directory is free");
});

test("after the first exits, cleanly or by SIGKILL, the next one starts at once", async () => {
	const { agentDir, cwd } = home();
	for (const signal of ["SIGTERM", "SIGINT"] as const) {
		const skiff = await startSkiff({ agentDir, cwd, args: ARGS });
		assert.equal(await skiff.stop(signal), 0);
		assert.equal(existsSync(ownerFile(agentDir)), false, `${signal} gives the directory up`);
	}
	const killed = await startSkiff({ agentDir, cwd, args: ARGS });
	await killed.ready;
	await killed.stop("SIGKILL");
	assert.equal(owner(agentDir).pid, killed.child.pid, "SIGKILL leaves the record behind");
	const next = await startSkiff({ agentDir, cwd, args: ARGS });
	try {
		assert.equal(owner(agentDir).pid, next.child.pid, "the stale record is taken over");
		const client = await TestClient.connect(next.wsUrl);
		await client.turn((await client.ok({ type: "get_state" })).sessionId, "REPLY after the takeover");
		client.close();
	} finally {
		await next.stop();
	}
	const rpc = startRpcProcess({ agentDir, cwd, args: ARGS });
	await rpc.request({ type: "get_state" });
	rpc.child.kill("SIGKILL");
	await rpc.exited;
	const again = await startSkiff({ agentDir, cwd, args: ARGS });
	assert.equal(await again.stop(), 0);
});

test("a record whose pid now belongs to another program, or that is no record at all, does not block", { skip: !existsSync("/proc/self/stat") && "needs /proc to tell a reused pid" }, async () => {
	const { agentDir, cwd } = home();
	// This test's own process is alive; a record naming it with another start time is a dead skiff's whose
	// pid was given to this process since.
	const bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
	const reused = { pid: process.pid, mark: `${bootId}/1`, mode: "listener", url: "http://127.0.0.1:1", since: new Date(0).toISOString(), nonce: "0123456789abcdef" };
	for (const content of [`${JSON.stringify(reused)}\n`, "", "not a record\n"]) {
		writeFileSync(ownerFile(agentDir), content);
		const skiff = await startSkiff({ agentDir, cwd, args: ARGS });
		assert.equal(owner(agentDir).pid, skiff.child.pid, `taken over: ${JSON.stringify(content)}`);
		assert.equal(await skiff.stop(), 0);
	}
});

test("started at the same instant on one agent directory, exactly one runs; the others are refused naming it", async () => {
	const { agentDir, cwd } = home();
	const deadPid = 999_999_999; // above the kernel's pid limit: no process has it
	for (const stale of [false, true]) {
		// With a stale record in place, every one of them judges it stale and tries to take it over.
		if (stale) writeFileSync(ownerFile(agentDir), `${JSON.stringify({ pid: deadPid, mode: "listener", since: new Date(0).toISOString(), nonce: "feedfacefeedface" })}\n`);
		const listeners = [0, 1, 2].map(() => launchSkiff({ agentDir, cwd, args: ARGS }));
		const rpc = startRpcProcess({ agentDir, cwd, args: ARGS });
		const rpcRuns = rpc.request({ type: "get_state" }).then(
			() => true,
			() => false,
		);
		const outcomes = await Promise.all(listeners);
		const started = outcomes.flatMap((o) => ("listening" in o ? [o.listening] : []));
		const rpcRan = await Promise.race([rpcRuns, rpc.exited.then(() => false)]);
		try {
			assert.equal(started.length + (rpcRan ? 1 : 0), 1, `exactly one runs (stale record: ${stale})`);
			const winner = owner(agentDir);
			const how = rpcRan ? "--mode rpc" : `listening on ${(started[0] as SkiffProcess).url}`;
			assert.equal(winner.pid, rpcRan ? rpc.child.pid : started[0]!.child.pid);
			for (const o of outcomes) {
				if (!("exited" in o)) continue;
				assert.equal(o.exited.code, 1);
				// The winner may not have bound yet when a loser looked.
				assert.ok(refusal(winner.pid, how, agentDir).test(o.exited.stderr) || refusal(winner.pid, "starting its listener", agentDir).test(o.exited.stderr), o.exited.stderr);
				assert.equal(o.exited.stdout, "");
			}
			if (!rpcRan) assert.match(rpc.stderr(), /^skiff: another skiff \(pid \d+, [^)]+\) uses the agent directory/);
		} finally {
			for (const skiff of started) assert.equal(await skiff.stop(), 0);
			rpc.child.stdin.end();
			await rpc.exited;
		}
		assert.equal(existsSync(ownerFile(agentDir)), false);
		assert.deepEqual(
			readdirSync(agentDir).filter((name) => name.startsWith("skiff.lock")),
			[],
			"no takeover or temporary file left behind",
		);
	}
});

test("a usage mistake is reported as before: the agent directory is not claimed", async () => {
	const { agentDir } = home();
	const { code } = await runSkiff(["--listen", "0.0.0.0:0"], { SKIFF_AGENT_DIR: agentDir });
	assert.equal(code, 2);
	assert.equal(existsSync(ownerFile(agentDir)), false);
});
