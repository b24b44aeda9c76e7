/**
 * The changes feature over the protocol, against the real service and the fake model: the model edits and
 * writes files in a temporary git repository and outside one; changes_get lists them with statuses and
 * counts and says which base it shows, changes_diff shows each diff, changes_updated arrives after the tool
 * calls, changes_revert restores (and trashes an untracked file, never deleting it), and refuses a file changed
 * since it was listed, a path outside the working directory and a call without `confirm`; repositories
 * mid-merge, on a detached HEAD and without a commit answer honestly. A write's result carries its diff
 * against what the file held (`details.diff`), or `created`, or why not (`diffOmitted`), live and recorded.
 * (A large write's diff, made within the time the service gives jsdiff, is timed: changes-large-write.test.ts.)
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, realpathSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Compile } from "typebox/compile";
import { createEventRegistry, createSchemaRegistry } from "../../src/contract.js";
import { fakeModelHome, useFakeModelSkiff } from "../support/fake-model-home.js";
import { baseRepository, removeTempRepos, sh, tempRepoDir } from "../support/git-repo.js";
import { startSkiff, tempDir } from "../support/skiff-process.js";
import { type Event, TestClient } from "../support/ws-client.js";
import { edit, toolResults, write } from "../support/write-calls.js";

const service = useFakeModelSkiff();
let client: TestClient;
const plainDirs: string[] = [];

before(async () => {
	await service.ready;
	client = service.client;
});

after(() => {
	removeTempRepos();
	for (const dir of plainDirs) rmSync(dir, { recursive: true, force: true });
});

function plainDir(): string {
	const dir = realpathSync(mkdtempSync(join(tmpdir(), "skiff-changes-plain-")));
	plainDirs.push(dir);
	return dir;
}


async function sessionIn(cwd: string): Promise<string> {
	const { sessionId } = await client.ok({ type: "new_session", cwd });
	return sessionId;
}

/** Runs one prompt and waits for the changes_updated that follows its tool calls. */
async function turnWithUpdate(sessionId: string, message: string): Promise<Event[]> {
	const from = client.events.length;
	const events = await client.turn(sessionId, `${message}\nAFTER_TOOL Done.`);
	await client.waitForEvent((e) => e.type === "changes_updated" && e.sessionId === sessionId, 5_000, from);
	for (const e of events.filter((e) => e.type === "tool_execution_end")) assert.equal(e.isError, false, JSON.stringify(e.result));
	return events;
}

function byPath(list: { files: Array<{ path: string }> }) {
	return Object.fromEntries(list.files.map((file) => [file.path, file])) as Record<string, any>;
}

test("in a git repository: the model's edit, write and bash show against HEAD with statuses and counts, each with its diff", async () => {
	const repo = baseRepository(tempRepoDir("skiff-changes-"));
	writeFileSync(join(repo, ".gitignore"), "ignored.log\n");
	sh(repo, "add", ".gitignore");
	sh(repo, "commit", "-q", "-m", "ignore");
	const sessionId = await sessionIn(repo);
	const events = await turnWithUpdate(sessionId, [edit("a.txt", "one\n", "one\nuno\n"), write("dir with space/new file.txt", "x\ny\n"), "RUN rm c.txt && echo log > ignored.log"].join("\n"));
	const updates = events.filter((e) => e.type === "changes_updated");
	const last = events.map((e) => e.type).lastIndexOf("tool_execution_end");
	assert.ok(updates.every((e) => events.indexOf(e) > last), "sent after the tool calls");

	const list = await client.ok({ type: "changes_get", sessionId });
	assert.equal(list.base.kind, "head");
	assert.match(list.base.description, /^HEAD \([0-9a-f]{12}, on main\)$/);
	assert.equal(list.cwd, repo);
	assert.deepEqual(list.repository.branch, "main");
	assert.equal(list.repository.detached, false);
	const files = byPath(list);
	assert.deepEqual(Object.keys(files), ["a.txt", "c.txt", "dir with space/new file.txt"], "sorted; the ignored file is not listed");
	assert.deepEqual([files["a.txt"].status, files["a.txt"].added, files["a.txt"].removed, files["a.txt"].binary], ["modified", 1, 0, false]);
	assert.deepEqual([files["c.txt"].status, files["c.txt"].added, files["c.txt"].removed], ["deleted", 0, 1]);
	assert.deepEqual([files["dir with space/new file.txt"].status, files["dir with space/new file.txt"].added], ["untracked", 2]);
	assert.equal(files["c.txt"].token, "absent");
	assert.match(files["a.txt"].token, /^sha256:/);

	const diff = await client.ok({ type: "changes_diff", sessionId, path: "a.txt" });
	assert.match(diff.diff, /^diff --git a\/a.txt b\/a.txt\n/);
	assert.match(diff.diff, /\n one\n\+uno\n$/);
	assert.deepEqual([diff.binary, diff.truncated, diff.status], [false, false, "modified"]);
	const added = await client.ok({ type: "changes_diff", sessionId, path: "dir with space/new file.txt" });
	assert.match(added.diff, /--- \/dev\/null\n\+\+\+ b\/dir with space\/new file.txt\t?\n@@ -0,0 \+1,2 @@\n\+x\n\+y\n/);
	const deleted = await client.ok({ type: "changes_diff", sessionId, path: "c.txt" });
	assert.match(deleted.diff, /deleted file mode[\s\S]*-to be deleted\n/);
	const missing = await client.request({ type: "changes_diff", sessionId, path: "b.txt" });
	assert.equal(missing.success, false);
	assert.match(String(missing.error), /not among the changed files/);
});

test("revert in git: restores a modified and a deleted file, trashes an untracked one, refuses a stale token, an outside path, a missing confirm", async () => {
	const repo = baseRepository(tempRepoDir("skiff-changes-"));
	const sessionId = await sessionIn(repo);
	await turnWithUpdate(sessionId, [edit("a.txt", "one", "two"), write("new.txt", "fresh\n"), write("later.txt", "v1\n"), "RUN rm c.txt"].join("\n"));
	const list = await client.ok({ type: "changes_get", sessionId });
	const tokens = Object.fromEntries(list.files.map((file: any) => [file.path, file.token]));
	writeFileSync(join(repo, "later.txt"), "v2, written after the listing\n");

	const noConfirm = await client.request({ type: "changes_revert", sessionId, paths: ["a.txt"], tokens });
	assert.equal(noConfirm.success, false, "confirm is required");
	assert.equal(readFileSync(join(repo, "a.txt"), "utf8"), "two\n");

	const from = client.events.length;
	const { files } = await client.ok({
		type: "changes_revert",
		sessionId,
		confirm: true,
		paths: ["a.txt", "c.txt", "new.txt", "later.txt", "../outside.txt", "/etc/passwd", "a.txt\u0000x", "README.md"],
		tokens,
	});
	const outcome = Object.fromEntries(files.map((file: any) => [file.path, file]));
	assert.equal(outcome["a.txt"].outcome, "restored");
	assert.equal(readFileSync(join(repo, "a.txt"), "utf8"), "one\n");
	assert.equal(outcome["c.txt"].outcome, "restored");
	assert.equal(readFileSync(join(repo, "c.txt"), "utf8"), "to be deleted\n");
	assert.equal(outcome["new.txt"].outcome, "trashed");
	assert.ok(!existsSync(join(repo, "new.txt")), "moved out of the working tree");
	assert.ok(outcome["new.txt"].trashedTo.startsWith(join(service.home.agentDir, "changes-trash")), "into the trash under the agent directory");
	assert.equal(readFileSync(outcome["new.txt"].trashedTo, "utf8"), "fresh\n", "never deleted");
	assert.deepEqual([outcome["later.txt"].outcome, outcome["later.txt"].reason], ["refused", outcome["later.txt"].reason]);
	assert.match(outcome["later.txt"].reason, /changed since you looked/);
	assert.equal(readFileSync(join(repo, "later.txt"), "utf8"), "v2, written after the listing\n", "left alone");
	assert.match(outcome["../outside.txt"].reason, /leaves the session's working directory/);
	assert.match(outcome["/etc/passwd"].reason, /absolute/);
	assert.match(outcome["a.txt\u0000x"].reason, /NUL/);
	assert.match(outcome["README.md"].reason, /not among the changed files/);
	await client.waitForEvent((e) => e.type === "changes_updated" && e.sessionId === sessionId, 5_000, from);
	const after = await client.ok({ type: "changes_get", sessionId });
	assert.deepEqual(after.files.map((file: any) => file.path), ["later.txt"]);
	assert.equal(sh(repo, "status", "--porcelain"), "?? later.txt\n");
});

test("a rename shows its old path and git's rename diff; its revert puts the old file back and trashes the new name", async () => {
	const repo = baseRepository(tempRepoDir("skiff-changes-"));
	const sessionId = await sessionIn(repo);
	await turnWithUpdate(sessionId, "RUN git mv a.txt 'moved name.txt'");
	const renamed = byPath(await client.ok({ type: "changes_get", sessionId }))["moved name.txt"];
	assert.deepEqual([renamed.status, renamed.oldPath, renamed.added, renamed.removed], ["renamed", "a.txt", 0, 0]);
	const diff = await client.ok({ type: "changes_diff", sessionId, path: "moved name.txt" });
	assert.match(diff.diff, /similarity index 100%\nrename from a.txt\nrename to moved name.txt\n/);
	const { files } = await client.ok({ type: "changes_revert", sessionId, confirm: true, paths: ["moved name.txt"], tokens: { "moved name.txt": renamed.token } });
	assert.equal(files[0].outcome, "restored");
	assert.equal(readFileSync(join(repo, "a.txt"), "utf8"), "one\n");
	assert.equal(readFileSync(files[0].trashedTo, "utf8"), "one\n");
	assert.equal(sh(repo, "status", "--porcelain"), "");
});

test("a symbolic link leading out of the working directory is not followed by a revert", async () => {
	const repo = baseRepository(tempRepoDir("skiff-changes-"));
	const outside = tempRepoDir("skiff-changes-outside-");
	writeFileSync(join(outside, "victim.txt"), "keep me\n");
	symlinkSync(outside, join(repo, "link"));
	const sessionId = await sessionIn(repo);
	const list = await client.ok({ type: "changes_get", sessionId });
	const link = byPath(list)["link"];
	assert.equal(link.status, "untracked", "the link itself is the change");
	const { files } = await client.ok({ type: "changes_revert", sessionId, confirm: true, paths: ["link", "link/victim.txt"], tokens: { link: link.token, "link/victim.txt": "x" } });
	assert.equal(files[0].outcome, "trashed", "the link itself goes to the trash");
	assert.equal(files[1].outcome, "refused");
	assert.equal(readFileSync(join(outside, "victim.txt"), "utf8"), "keep me\n", "nothing outside changed");
});

test("since the session started: the commit and untracked files at the first prompt are the base", async () => {
	const repo = baseRepository(tempRepoDir("skiff-changes-"));
	writeFileSync(join(repo, "notes.txt"), "mine, untracked before the session\n");
	const sessionId = await sessionIn(repo);
	const early = await client.request({ type: "changes_get", sessionId, since: "session_start" });
	assert.equal(early.success, false);
	assert.match(String(early.error), /recorded at its first prompt/);
	await turnWithUpdate(sessionId, write("agent.txt", "made by the agent\n"));
	sh(repo, "add", "agent.txt");
	sh(repo, "commit", "-q", "-m", "the user commits the agent's file");
	const sinceHead = await client.ok({ type: "changes_get", sessionId });
	assert.deepEqual(sinceHead.files.map((file: any) => file.path), ["notes.txt"]);
	const sinceStart = await client.ok({ type: "changes_get", sessionId, since: "session_start" });
	assert.equal(sinceStart.base.kind, "session_start");
	assert.match(sinceStart.base.description, /^Since the session started/);
	assert.deepEqual(sinceStart.files.map((file: any) => [file.path, file.status]), [["agent.txt", "added"]], "the user's untracked file was there before");
	const diff = await client.ok({ type: "changes_diff", sessionId, path: "agent.txt", since: "session_start" });
	assert.match(diff.diff, /\+made by the agent\n/);
	writeFileSync(join(repo, "notes.txt"), "mine, changed during the session\n");
	const changed = byPath(await client.ok({ type: "changes_get", sessionId, since: "session_start" }))["notes.txt"];
	assert.equal(changed.status, "untracked");
	assert.match(changed.note, /its content then was not kept/);
	const { files } = await client.ok({ type: "changes_revert", sessionId, since: "session_start", confirm: true, paths: ["notes.txt"], tokens: { "notes.txt": changed.token } });
	assert.equal(files[0].outcome, "refused", "what it held then is unknown: it is not trashed");
	assert.equal(readFileSync(join(repo, "notes.txt"), "utf8"), "mine, changed during the session\n");
	const recorded = readFileSync(
		(await client.ok({ type: "get_state", sessionId })).sessionFile,
		"utf8",
	);
	assert.match(recorded, /"customType":"skiff.changes.start"/, "the start is in the session file");
});

test("outside git: the base is what the session's edit and write found, kept in the session; revert puts it back and trashes a new file", async () => {
	const dir = plainDir();
	writeFileSync(join(dir, "story.md"), "line 1\nline 2\nline 3\n");
	const sessionId = await sessionIn(dir);
	await turnWithUpdate(sessionId, [edit("story.md", "line 2\n", "line two\nline 2.5\n"), write("made.txt", "new\n")].join("\n"));
	const list = await client.ok({ type: "changes_get", sessionId });
	assert.equal(list.base.kind, "recorded");
	assert.equal(list.repository, undefined);
	assert.ok(list.notes.some((note: string) => /Not a git repository/.test(note)));
	const files = byPath(list);
	assert.deepEqual([files["story.md"].status, files["story.md"].added, files["story.md"].removed], ["modified", 2, 1]);
	assert.deepEqual([files["made.txt"].status, files["made.txt"].added], ["added", 1]);
	const diff = await client.ok({ type: "changes_diff", sessionId, path: "story.md" });
	assert.match(diff.diff, /^--- a\/story.md\n\+\+\+ b\/story.md\n@@ -1,3 \+1,4 @@\n line 1\n-line 2\n\+line two\n\+line 2.5\n line 3\n$/);

	// A second edit of the same file keeps the first base.
	await turnWithUpdate(sessionId, edit("story.md", "line 3\n", "line three\n"));
	const again = byPath(await client.ok({ type: "changes_get", sessionId }));
	assert.deepEqual([again["story.md"].added, again["story.md"].removed], [3, 2]);

	const { files: reverted } = await client.ok({
		type: "changes_revert",
		sessionId,
		confirm: true,
		paths: ["story.md", "made.txt"],
		tokens: { "story.md": again["story.md"].token, "made.txt": again["made.txt"].token },
	});
	assert.deepEqual(reverted.map((file: any) => file.outcome), ["restored", "trashed"]);
	assert.equal(readFileSync(join(dir, "story.md"), "utf8"), "line 1\nline 2\nline 3\n");
	assert.ok(!existsSync(join(dir, "made.txt")));
	assert.equal((await client.ok({ type: "changes_get", sessionId })).files.length, 0);
	const sessionFile = (await client.ok({ type: "get_state", sessionId })).sessionFile;
	assert.match(readFileSync(sessionFile, "utf8"), /"customType":"skiff.changes.before"/, "the base is in the session file, so a reload keeps it");
});

test("a repository mid-merge, one on a detached HEAD and one without a commit answer honestly", async () => {
	const merging = baseRepository(tempRepoDir("skiff-changes-"));
	sh(merging, "switch", "-q", "-c", "other");
	writeFileSync(join(merging, "a.txt"), "theirs\n");
	sh(merging, "commit", "-qam", "theirs");
	sh(merging, "switch", "-q", "main");
	writeFileSync(join(merging, "a.txt"), "ours\n");
	sh(merging, "commit", "-qam", "ours");
	assert.throws(() => sh(merging, "merge", "-q", "other"));
	const mergingSession = await sessionIn(merging);
	const conflicted = await client.ok({ type: "changes_get", sessionId: mergingSession });
	assert.equal(conflicted.repository.operation, "merge");
	assert.ok(conflicted.notes.some((note: string) => /merge is in progress/.test(note)));
	const a = byPath(conflicted)["a.txt"];
	assert.deepEqual([a.status, a.conflicted], ["modified", true]);
	assert.match((await client.ok({ type: "changes_diff", sessionId: mergingSession, path: "a.txt" })).diff, /<<<<<<< HEAD/);
	const { files } = await client.ok({ type: "changes_revert", sessionId: mergingSession, confirm: true, paths: ["a.txt"], tokens: { "a.txt": a.token } });
	assert.equal(files[0].outcome, "restored");
	assert.equal(readFileSync(join(merging, "a.txt"), "utf8"), "ours\n");

	const detached = baseRepository(tempRepoDir("skiff-changes-"));
	sh(detached, "switch", "-q", "--detach", "HEAD");
	writeFileSync(join(detached, "a.txt"), "changed\n");
	const detachedList = await client.ok({ type: "changes_get", sessionId: await sessionIn(detached) });
	assert.equal(detachedList.repository.detached, true);
	assert.equal(detachedList.repository.branch, undefined);
	assert.match(detachedList.base.description, /detached/);
	assert.deepEqual(detachedList.files.map((file: any) => file.status), ["modified"]);

	const empty = tempRepoDir("skiff-changes-");
	sh(empty, "init", "-q", "-b", "main");
	writeFileSync(join(empty, "first.txt"), "1\n2\n");
	mkdirSync(join(empty, "bin"));
	writeFileSync(join(empty, "bin", "blob.dat"), Buffer.from([0, 1, 2, 3]));
	sh(empty, "add", "first.txt");
	const emptySession = await sessionIn(empty);
	const emptyList = await client.ok({ type: "changes_get", sessionId: emptySession });
	assert.equal(emptyList.repository.head, undefined);
	assert.match(emptyList.base.description, /no commit yet/);
	assert.deepEqual(
		emptyList.files.map((file: any) => [file.path, file.status, file.added, file.binary]),
		[
			["bin/blob.dat", "untracked", 0, true],
			["first.txt", "added", 2, false],
		],
	);
	const binary = await client.ok({ type: "changes_diff", sessionId: emptySession, path: "bin/blob.dat" });
	assert.equal(binary.binary, true);
	assert.match(binary.diff, /Binary files \/dev\/null and b\/bin\/blob.dat differ/);
	const first = byPath(emptyList)["first.txt"];
	const { files: undone } = await client.ok({ type: "changes_revert", sessionId: emptySession, confirm: true, paths: ["first.txt"], tokens: { "first.txt": first.token } });
	assert.equal(undone[0].outcome, "trashed");
	assert.equal(sh(empty, "status", "--porcelain"), "?? bin/\n", "out of the index and the working tree");
});

test("a session in a subfolder of the repository: only its files, paths relative to it", async () => {
	const repo = baseRepository(tempRepoDir("skiff-changes-"));
	mkdirSync(join(repo, "pkg"));
	writeFileSync(join(repo, "pkg", "inside.txt"), "in\n");
	sh(repo, "add", "-A");
	sh(repo, "commit", "-q", "-m", "pkg");
	writeFileSync(join(repo, "a.txt"), "changed outside the subfolder\n");
	const sessionId = await sessionIn(join(repo, "pkg"));
	await turnWithUpdate(sessionId, [edit("inside.txt", "in", "changed"), write("fresh.txt", "new\n")].join("\n"));
	const list = await client.ok({ type: "changes_get", sessionId });
	assert.equal(list.repository.root, repo);
	assert.deepEqual(list.files.map((file: any) => [file.path, file.status]), [["fresh.txt", "untracked"], ["inside.txt", "modified"]]);
	assert.match((await client.ok({ type: "changes_diff", sessionId, path: "inside.txt" })).diff, /^diff --git a\/inside.txt b\/inside.txt\n/);
	const outside = await client.ok({ type: "changes_revert", sessionId, confirm: true, paths: ["../a.txt"], tokens: { "../a.txt": "x" } });
	assert.equal(outside.files[0].outcome, "refused");
	assert.equal(readFileSync(join(repo, "a.txt"), "utf8"), "changed outside the subfolder\n");
	const inside = byPath(list)["inside.txt"];
	assert.equal((await client.ok({ type: "changes_revert", sessionId, confirm: true, paths: ["inside.txt"], tokens: { "inside.txt": inside.token } })).files[0].outcome, "restored");
	assert.equal(readFileSync(join(repo, "pkg", "inside.txt"), "utf8"), "in\n");
});

test("a 50 MiB file and non-UTF-8 text: listed with a note, their diffs bounded and decoded honestly", async () => {
	const repo = baseRepository(tempRepoDir("skiff-changes-"));
	writeFileSync(join(repo, "huge.log"), "a line of a very large log file\n".repeat(Math.ceil((50 * 1024 * 1024) / 32)));
	writeFileSync(join(repo, "latin1.txt"), Buffer.from("caf\xe9\n", "latin1"));
	const sessionId = await sessionIn(repo);
	const files = byPath(await client.ok({ type: "changes_get", sessionId }));
	assert.match(files["huge.log"].note, /too large to count its lines/);
	assert.match(files["huge.log"].token, /^size:\d+:mtime:\d+$/);
	const huge = await client.ok({ type: "changes_diff", sessionId, path: "huge.log" }, 60_000);
	assert.equal(huge.truncated, true);
	assert.ok(Buffer.byteLength(huge.diff) <= 512 * 1024);
	assert.equal(files["latin1.txt"].added, 1);
	assert.match((await client.ok({ type: "changes_diff", sessionId, path: "latin1.txt" })).diff, /\+caf\uFFFD\n/);
	await client.ok({ type: "ping" }); // the service still answers
});

test("a shell command of the user announces changes_updated too, once for a burst", async () => {
	const repo = baseRepository(tempRepoDir("skiff-changes-"));
	const sessionId = await sessionIn(repo);
	const from = client.events.length;
	await client.ok({ type: "bash", sessionId, command: "echo made > by-user.txt" });
	await client.ok({ type: "bash", sessionId, command: "echo more >> by-user.txt" });
	await client.waitForEvent((e) => e.type === "changes_updated" && e.sessionId === sessionId, 5_000, from);
	await new Promise((resolve) => setTimeout(resolve, 600));
	const updates = client.events.slice(from).filter((e) => e.type === "changes_updated" && e.sessionId === sessionId);
	assert.equal(updates.length, 1, "two commands in a burst: one event");
	assert.deepEqual((await client.ok({ type: "changes_get", sessionId })).files.map((file: any) => [file.path, file.added]), [["by-user.txt", 2]]);
});

test("bad input: a missing or false confirm, no paths, unknown fields and a path with NUL are refused as invalid", async () => {
	const sessionId = await sessionIn(plainDir());
	for (const command of [
		{ paths: ["a"], tokens: {} },
		{ paths: ["a"], tokens: {}, confirm: false },
		{ paths: [], tokens: {}, confirm: true },
		{ paths: ["a"], confirm: true },
		{ paths: ["a"], tokens: {}, confirm: true, force: true },
	]) {
		const response = await client.request({ type: "changes_revert", sessionId, ...command });
		assert.equal(response.success, false, JSON.stringify(command));
		assert.equal(response.code, "invalid_command");
	}
	const nul = await client.request({ type: "changes_diff", sessionId, path: "a\u0000b" });
	assert.equal(nul.code, "invalid_command");
	const outside = await client.request({ type: "changes_diff", sessionId, path: "../etc/passwd" });
	assert.equal(outside.code, "forbidden");
	assert.equal((await client.request({ type: "changes_get", sessionId, since: "yesterday" })).code, "invalid_command");
});

test("git not installed: an honest answer from what the session's edits recorded, even in a repository", async () => {
	const agent = tempDir();
	const noGit = await startSkiff({ agentDir: fakeModelHome(service.model.url).agentDir, cwd: agent, args: ["--model", "fake/fake-model"], env: { PATH: tempDir("skiff-empty-path-") } });
	const other = await TestClient.connect(noGit.wsUrl);
	try {
		const repo = baseRepository(tempRepoDir("skiff-changes-"));
		const { sessionId } = await other.ok({ type: "new_session", cwd: repo });
		await other.turn(sessionId, `${edit("a.txt", "one", "ONE")}\nAFTER_TOOL Done.`);
		const list = await other.ok({ type: "changes_get", sessionId });
		assert.equal(list.base.kind, "recorded");
		assert.ok(list.notes.some((note: string) => /git is not installed/.test(note)));
		assert.deepEqual(list.files.map((file: any) => [file.path, file.status, file.added, file.removed]), [["a.txt", "modified", 1, 1]]);
	} finally {
		other.close();
		await noGit.stop();
	}
});

test("outside git, the recorded base survives a restart with --continue", async () => {
	const home = fakeModelHome(service.model.url);
	writeFileSync(join(home.cwd, "kept.txt"), "before\n");
	const first = await home.start();
	let other = await TestClient.connect(first.wsUrl);
	const { sessionId } = await other.ok({ type: "get_state" });
	await other.turn(sessionId, `${edit("kept.txt", "before", "after")}\nAFTER_TOOL Done.`);
	const listed = await other.ok({ type: "changes_get" });
	assert.deepEqual(listed.files.map((file: any) => [file.path, file.status]), [["kept.txt", "modified"]]);
	other.close();
	await first.stop();
	const second = await home.start("--continue");
	try {
		other = await TestClient.connect(second.wsUrl);
		assert.equal((await other.ok({ type: "get_state" })).sessionId, sessionId);
		assert.deepEqual((await other.ok({ type: "changes_get" })).files, listed.files, "the same base after the restart");
		assert.match((await other.ok({ type: "changes_diff", path: "kept.txt" })).diff, /-before\n\+after\n/);
		other.close();
	} finally {
		await second.stop();
	}
});

const results = (cwd: string, calls: string[]) => toolResults(client, cwd, calls);

for (const where of ["in a git repository", "outside git"] as const) {
	test(`${where}: a write of an existing file carries its diff, a new file says so, an edit keeps pi's diff`, async () => {
		const dir = where === "outside git" ? plainDir() : baseRepository(tempRepoDir("skiff-changes-"));
		writeFileSync(join(dir, "a.txt"), "one\n");
		const { live, recorded } = await results(dir, [write("a.txt", "one\nuno\n"), write("sub/new.txt", "x\ny\n"), edit("a.txt", "uno", "eins")]);
		for (const [overwrite, created, edited] of [live.map((e) => e.result), recorded]) {
			assert.equal(overwrite.details.diff, "--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,2 @@\n one\n+uno\n");
			assert.deepEqual(created.details, { created: true });
			assert.match(edited.details.diff, /-\d+ uno\n\+\d+ eins/, "pi's own edit diff, untouched");
			assert.match(JSON.stringify(overwrite.content), /Successfully wrote/, "the content the model sees is unchanged");
		}
	});
}

test("bad input: a binary file before, one over the kept size, a failed write and a write outside the folder", async () => {
	const dir = plainDir();
	writeFileSync(join(dir, "blob.bin"), Buffer.from([0, 1, 2, 0, 255]));
	writeFileSync(join(dir, "big.txt"), "x".repeat(300 * 1024));
	mkdirSync(join(dir, "folder"));
	const outside = join(plainDir(), "outside.txt");
	writeFileSync(outside, "secret-ish\n");
	const { live } = await results(dir, [write("blob.bin", "text now\n"), write("big.txt", "small\n"), write("folder", "a folder\n"), write(outside, "over\n")]);
	const [binary, big, failed, away] = live;
	assert.deepEqual(binary!.result.details, { diffOmitted: "the file before was binary" });
	assert.match(big!.result.details.diffOmitted, /^the file before was 307200 bytes, over the 256 KiB kept$/);
	assert.equal(failed!.isError, true);
	assert.equal(failed!.result.details?.diff, undefined, "a failed write has no diff");
	assert.equal(away!.isError, false);
	assert.equal(away!.result.details, undefined, "outside the working directory nothing is read");
});

test("every response and event of these runs fits the published schemas", () => {
	const commands = createSchemaRegistry();
	const events = createEventRegistry();
	const results = new Map(commands.list().map((c) => [c.name, Compile(c.result)]));
	const eventChecks = new Map(events.list().map((e) => [e.type, Compile(e.schema)]));
	const problems: string[] = [];
	let checked = 0;
	for (const response of client.responses) {
		if (!response.success || !String(response.command).startsWith("changes_")) continue;
		checked++;
		const check = results.get(String(response.command))!;
		if (!check.Check(response.data)) problems.push(`${response.command}: ${JSON.stringify([...check.Errors(response.data)].slice(0, 2))}`);
	}
	const updates = client.events.filter((e) => e.type === "changes_updated");
	for (const event of updates) if (!eventChecks.get("changes_updated")!.Check(event)) problems.push(`changes_updated: ${JSON.stringify(event)}`);
	assert.deepEqual(problems, []);
	assert.ok(checked >= 20 && updates.length >= 5, `the checks saw the runs (${checked} responses, ${updates.length} events)`);
});
