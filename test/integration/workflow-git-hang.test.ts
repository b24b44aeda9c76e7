/**
 * A git that hangs does not hold the service: a repository whose post-checkout hook sleeps makes
 * `workflow_create`'s `git worktree add` hang for real; meanwhile another client's `ping` is answered within
 * 100 ms, and once the git timeout (SKIFF_GIT_TIMEOUT_MS, short here) passes, git and its hook are stopped and
 * the command fails naming the git command, with nothing of the workflow left behind.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { alive, writePid, writtenPid } from "../support/git-repo.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { until } from "../support/until.js";
import { TestClient } from "../support/ws-client.js";

const GIT_TIMEOUT_MS = 1_500;

let model: FakeOpenAiServer;
let skiff: SkiffProcess;
let agentDir: string;

const git = (dir: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@example.com", ...args], { cwd: dir, encoding: "utf8" });

before(async () => {
	model = await startFakeOpenAi();
	agentDir = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	skiff = await startSkiff({ agentDir, cwd: tempDir(), args: ["--model", "fake/fake-model"], env: { SKIFF_GIT_TIMEOUT_MS: String(GIT_TIMEOUT_MS) } });
});

after(async () => {
	await skiff?.stop();
	await model?.close();
});

/**
 * A repository whose post-checkout hook (which `git worktree add` runs) records its pid and sleeps far past any
 * timeout here; `ignoringTerm`: the hook and its sleep ignore SIGTERM.
 */
function repositoryWithHangingHook(ignoringTerm = false): { repo: string; pidFile: string } {
	const repo = realpathSync(tempDir("skiff-wf-hang-"));
	git(repo, "init", "-q", "-b", "main");
	writeFileSync(join(repo, "a.txt"), "one\n");
	git(repo, "add", "-A");
	git(repo, "commit", "-q", "-m", "first");
	const hooks = join(tempDir(), "hooks");
	const pidFile = join(hooks, "hook.pid");
	mkdirSync(hooks);
	writeFileSync(join(hooks, "post-checkout"), `#!/bin/sh\n${ignoringTerm ? "trap '' TERM\n" : ""}${writePid(pidFile)}\nexec sleep 60\n`);
	chmodSync(join(hooks, "post-checkout"), 0o755);
	git(repo, "config", "core.hooksPath", hooks);
	return { repo, pidFile };
}

test("a git hook that hangs leaves ping answered within 100 ms; the command then fails with the timeout, nothing half-created", async () => {
	const { repo, pidFile } = repositoryWithHangingHook();
	const creator = await TestClient.connect(skiff.wsUrl);
	const bystander = await TestClient.connect(skiff.wsUrl);
	const { sessionId } = await creator.ok({ type: "new_session", cwd: repo });
	await creator.ok({ type: "prompt", sessionId, message: "REPLY ready" });
	await creator.waitForEvent((e) => e.type === "agent_end" && e.sessionId === sessionId, 20_000);
	assert.equal((await bystander.request({ type: "ping" })).success, true);

	const started = Date.now();
	const created = creator.request({ type: "workflow_create", sessionId, name: "hangs", objective: "Anything." }, 30_000);
	const hook = await writtenPid(pidFile);
	const pings: number[] = [];
	for (let i = 0; i < 5; i++) {
		const sent = performance.now();
		assert.equal((await bystander.request({ type: "ping" }, 5_000)).success, true);
		pings.push(performance.now() - sent);
	}
	assert.ok(Date.now() - started < GIT_TIMEOUT_MS, "the pings were answered while git hung");
	assert.ok(Math.max(...pings) < 100, `ping while git hangs: ${pings.map((ms) => ms.toFixed(1)).join(", ")} ms`);

	const answer = await created;
	const elapsed = Date.now() - started;
	assert.equal(answer.success, false);
	assert.equal(answer.code, "failed");
	// An argument over 60 characters is shown cut and quoted (git.ts, describeCommand): the worktree's path may be.
	assert.match(
		answer.error!,
		new RegExp(`^The workflow's worktree could not be created: git worktree add -q -b skiff/workflow/wf-[0-9a-f]{12} (\\S+/worktree|"\\S+…") [0-9a-f]{40} timed out after 1\\.5 s in ${repo}$`),
	);
	assert.ok(elapsed >= GIT_TIMEOUT_MS && elapsed < GIT_TIMEOUT_MS + 10_000, `answered after the timeout (${elapsed} ms)`);
	await until(() => !alive(hook), "the hook's sleep to be stopped with git");

	// Nothing of the workflow is left: no branch, no worktree, no record.
	assert.equal(git(repo, "branch", "--list", "skiff/*"), "");
	assert.equal(git(repo, "worktree", "list").trim().split("\n").length, 1);
	assert.deepEqual(existsSync(join(agentDir, "workflows")) ? readdirSync(join(agentDir, "workflows")) : [], []);
	assert.deepEqual((await creator.ok({ type: "workflow_list", sessionId })).workflows, []);
	creator.close();
	bystander.close();
});

for (const ignoringTerm of [false, true]) {
	test(`a git that hangs when the service stops is stopped with it${ignoringTerm ? ", though its hook ignores SIGTERM" : ""}`, () => hangsWhenTheServiceStops(ignoringTerm));
}

async function hangsWhenTheServiceStops(ignoringTerm: boolean): Promise<void> {
	const { repo, pidFile } = repositoryWithHangingHook(ignoringTerm);
	const dir = tempDir();
	writeFakeModelsJson(dir, model.url);
	const own = await startSkiff({ agentDir: dir, cwd: repo, args: ["--model", "fake/fake-model"] }); // the default timeout: 30 s
	try {
		const client = await TestClient.connect(own.wsUrl);
		const { sessionId } = await client.ok({ type: "new_session", cwd: repo });
		await client.ok({ type: "prompt", sessionId, message: "REPLY ready" });
		await client.waitForEvent((e) => e.type === "agent_end" && e.sessionId === sessionId, 20_000);
		void client.request({ type: "workflow_create", sessionId, name: "hangs", objective: "Anything." }, 60_000).catch(() => undefined);
		const hook = await writtenPid(pidFile);
		try {
			assert.ok(alive(hook));
			client.close();
			assert.equal(await own.stop(), 0);
			await until(() => !alive(hook), "the hook's sleep to be stopped with the service");
		} finally {
			if (alive(hook)) process.kill(hook, "SIGKILL");
		}
	} finally {
		await own.stop("SIGKILL");
	}
}
