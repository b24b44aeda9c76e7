/**
 * Every git the service runs, and whatever it started, stops with the service (src/features/git-groups.ts): a
 * process a hook left behind after git answered, and a hook that hangs, even when they ignore SIGTERM; and no
 * git the service runs starts maintenance that detaches from its group.
 */
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { promisify } from "node:util";
import { stopGitGroups, trackedGroupCount } from "../../../src/features/git-groups.js";
import { git } from "../../../src/features/git.js";
import { alive, removeTempRepos, tempRepoDir, writePid } from "../../support/git-repo.js";
import { until } from "../../support/until.js";

after(removeTempRepos);

/** A repository and hooks folders: `leaves-behind` (post-commit starts a sleep that ignores SIGTERM, in the background, and returns) and `hangs` (pre-commit ignores SIGTERM and sleeps). */
function repositoryWithHooks(): { repo: string; hooks: string } {
	const repo = tempRepoDir("skiff-git-groups-");
	execFileSync("git", ["init", "-q", "-b", "main"], { cwd: repo });
	const hooks = tempRepoDir("skiff-git-hooks-");
	const hook = (folder: string, name: string, script: string) => {
		mkdirSync(join(hooks, folder), { recursive: true });
		writeFileSync(join(hooks, folder, name), `#!/bin/sh\ntrap '' TERM\n${script}\n`);
		chmodSync(join(hooks, folder, name), 0o755);
	};
	hook("leaves-behind", "post-commit", `sleep 60 </dev/null >/dev/null 2>&1 &\n${writePid(join(hooks, "left.pid"), "$!")}`);
	hook("hangs", "pre-commit", `${writePid(join(hooks, "hanging.pid"))}\nexec sleep 60 >/dev/null 2>&1`);
	return { repo, hooks };
}

test("a process a hook left behind after git answered is stopped by stopGitGroups, with SIGKILL when it ignores SIGTERM", async () => {
	const { repo, hooks } = repositoryWithHooks();
	await git(repo, ["-c", `core.hooksPath=${join(hooks, "leaves-behind")}`, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "one"]);
	const left = Number(readFileSync(join(hooks, "left.pid"), "utf8"));
	try {
		assert.ok(left > 0 && alive(left), "the hook's process outlived git's answer");
		assert.equal(trackedGroupCount(), 1, "its group is still tracked");
		await stopGitGroups(100);
		await until(() => !alive(left), "the left-behind process to be stopped");
		await until(() => trackedGroupCount() === 0, "the group to be forgotten once empty");
	} finally {
		if (alive(left)) process.kill(left, "SIGKILL");
	}
});

test("at the process's exit, without the shutdown's stop, a left-behind process and a hanging hook that ignore SIGTERM get SIGTERM, then SIGKILL after the grace", async () => {
	const { repo, hooks } = repositoryWithHooks();
	const child = join(import.meta.dirname, "../../support/git-exit-child.ts");
	const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", child, repo, hooks], { encoding: "utf8" });
	const [left, hanging] = stdout.trim().split(" ").map(Number) as [number, number];
	assert.ok(left > 0 && hanging > 0);
	try {
		await until(() => !alive(left) && !alive(hanging), () => `the processes to end (left behind: ${alive(left)}, hanging: ${alive(hanging)})`);
		assert.equal(existsSync(join(repo, ".git", "index.lock")), false, "git had its SIGTERM first, and removed its lock file");
	} finally {
		for (const pid of [left, hanging]) if (alive(pid)) process.kill(pid, "SIGKILL");
	}
});

test("git runs without automatic maintenance (it would detach beyond the group), after the configuration it was given", async () => {
	const repo = tempRepoDir("skiff-git-config-");
	execFileSync("git", ["init", "-q", "-b", "main"], { cwd: repo });
	const env = { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "user.name", GIT_CONFIG_VALUE_0: "Given Name" };
	assert.equal(await git(repo, ["config", "--get", "maintenance.auto"], { env }), "false\n");
	assert.equal(await git(repo, ["config", "--get", "gc.auto"], { env }), "0\n");
	assert.equal(await git(repo, ["config", "--get", "user.name"], { env }), "Given Name\n", "the given configuration is kept");
	assert.equal(await git(repo, ["config", "--get", "maintenance.auto"], { env: { GIT_CONFIG_COUNT: "nonsense" } }), "false\n");
});
