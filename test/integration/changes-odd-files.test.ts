/**
 * The changes feature on the files git reports oddly, against the real service: a file taken out of the index
 * but still in the working tree (git reports it twice), a folder holding a repository of its own (git lists it
 * with a trailing "/"), a submodule whose commit moved, names that are not UTF-8, an untracked link to a
 * folder, a file gone between the listing and the diff or revert, one file named twice in a revert, a rename
 * whose old name is taken, a folder or file standing where a revert would restore, and (outside git) a write
 * through a linked folder that leads out. Each is listed once, diffed honestly or refused naming why; a revert
 * never claims what it did not do nor removes what it did not list; nothing outside is read or kept.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Compile } from "typebox/compile";
import { ChangesListSchema, FileDiffSchema, RevertedFileSchema } from "../../src/features/changes/schemas.js";
import { baseRepository, removeTempRepos, sh, tempRepoDir } from "../support/git-repo.js";
import { useFakeModelSkiff } from "../support/fake-model-home.js";
import type { TestClient } from "../support/ws-client.js";
import { write } from "../support/write-calls.js";

const listCheck = Compile(ChangesListSchema);
const diffCheck = Compile(FileDiffSchema);
const revertedCheck = Compile(RevertedFileSchema);

const service = useFakeModelSkiff();
let client: TestClient;
before(async () => {
	await service.ready;
	client = service.client;
});
after(removeTempRepos);

async function changes(repo: string): Promise<{ sessionId: string; list: any; byPath: Record<string, any> }> {
	const { sessionId } = await client.ok({ type: "new_session", cwd: repo });
	const list = await client.ok({ type: "changes_get", sessionId });
	assert.ok(listCheck.Check(list), JSON.stringify([...listCheck.Errors(list)].slice(0, 2)));
	return { sessionId, list, byPath: Object.fromEntries(list.files.map((file: any) => [file.path, file])) };
}

async function diff(sessionId: string, path: string): Promise<any> {
	const response = await client.request({ type: "changes_diff", sessionId, path });
	if (response.success) assert.ok(diffCheck.Check(response.data), JSON.stringify([...diffCheck.Errors(response.data)].slice(0, 2)));
	return response;
}

async function revert(sessionId: string, paths: string[], tokens: Record<string, string>): Promise<any[]> {
	const { files } = await client.ok({ type: "changes_revert", sessionId, confirm: true, paths, tokens });
	for (const file of files) assert.ok(revertedCheck.Check(file), JSON.stringify(file));
	return files;
}

/** Runs a shell command in `dir` (for names that are not UTF-8, which an argument list cannot carry). */
const shell = (dir: string, script: string) => execFileSync("sh", ["-c", script], { cwd: dir, encoding: "latin1" });

test("a file taken out of the index but still in the working tree is one change; its revert puts it back, never in the trash", async () => {
	const repo = baseRepository(tempRepoDir("skiff-odd-"));
	sh(repo, "rm", "--cached", "-q", "a.txt");
	writeFileSync(join(repo, "a.txt"), "one\nmore\n");
	const { sessionId, list, byPath } = await changes(repo);
	assert.deepEqual(
		list.files.map((file: any) => file.path),
		["a.txt"],
		"listed once, not as deleted and untracked",
	);
	assert.deepEqual([byPath["a.txt"].status, byPath["a.txt"].added, byPath["a.txt"].removed], ["modified", 2, 1]);
	assert.match(byPath["a.txt"].note, /taken out of git's index/);
	const shown = await diff(sessionId, "a.txt");
	assert.equal(shown.success, true, shown.error);
	assert.match(shown.data.diff, /^--- a\/a.txt\n\+\+\+ b\/a.txt\n@@ [^\n]+ @@\n one\n\+more\n$/);

	const [done] = await revert(sessionId, ["a.txt"], { "a.txt": byPath["a.txt"].token });
	assert.deepEqual([done.outcome, done.trashedTo], ["restored", undefined]);
	assert.equal(readFileSync(join(repo, "a.txt"), "utf8"), "one\n", "the base's content, in the working tree");
	assert.equal(sh(repo, "status", "--porcelain"), "", "and in the index");
});

test("an untracked folder holding a repository of its own: named without git's trailing slash, no diff but a note, reverted whole to the trash", async () => {
	const repo = baseRepository(tempRepoDir("skiff-odd-"));
	const inner = join(repo, "inner");
	mkdirSync(inner);
	sh(inner, "init", "-q");
	writeFileSync(join(inner, "f.txt"), "inner file\n");
	const { sessionId, list, byPath } = await changes(repo);
	assert.deepEqual(
		list.files.map((file: any) => file.path),
		["inner"],
	);
	assert.match(byPath.inner.note, /repository of its own/);
	const shown = await diff(sessionId, "inner");
	assert.equal(shown.success, true, shown.error);
	assert.deepEqual([shown.data.diff, shown.data.status], ["", "untracked"]);
	assert.match(shown.data.note, /repository of its own/);

	// There before the session's first prompt and unchanged, it is not the session's change.
	await client.turn(sessionId, "REPLY Nothing to do.");
	const sinceStart = await client.ok({ type: "changes_get", sessionId, since: "session_start" });
	assert.deepEqual(sinceStart.files, [], "the start recorded it by the same name");

	const [done] = await revert(sessionId, ["inner"], { inner: byPath.inner.token });
	assert.equal(done.outcome, "trashed");
	assert.ok(!existsSync(inner));
	assert.equal(readFileSync(join(done.trashedTo, "f.txt"), "utf8"), "inner file\n", "moved whole, never deleted");
});

test("a submodule whose commit moved is listed with a note and its revert is refused, since its checkout would stay as it is", async () => {
	const sub = baseRepository(tempRepoDir("skiff-odd-sub-"));
	const repo = baseRepository(tempRepoDir("skiff-odd-"));
	sh(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "mod");
	sh(repo, "commit", "-q", "-m", "submodule");
	writeFileSync(join(repo, "mod", "a.txt"), "changed in the submodule\n");
	sh(join(repo, "mod"), "commit", "-q", "-a", "-m", "moved");
	const moved = sh(join(repo, "mod"), "rev-parse", "HEAD").trim();
	const { sessionId, byPath } = await changes(repo);
	assert.equal(byPath.mod.status, "modified");
	assert.match(byPath.mod.note, /submodule/);
	const shown = await diff(sessionId, "mod");
	assert.match(shown.data.diff, new RegExp(`\\+Subproject commit ${moved}`));

	const [done] = await revert(sessionId, ["mod"], { mod: byPath.mod.token });
	assert.equal(done.outcome, "refused", "not claimed restored");
	assert.match(done.reason, /submodule/);
	assert.equal(sh(join(repo, "mod"), "rev-parse", "HEAD").trim(), moved, "the submodule's checkout is untouched");
});

test("names that are not UTF-8 are listed with a note; their diff and revert are refused naming why, and nothing is touched", async () => {
	const repo = baseRepository(tempRepoDir("skiff-odd-"));
	shell(repo, "printf 'tracked\\n' > \"tr$(printf '\\351').txt\" && printf 'moved\\n' > \"from$(printf '\\351').txt\" && git add . && git -c user.name=T -c user.email=t@e commit -qm latin1");
	shell(repo, "printf 'changed\\n' > \"tr$(printf '\\351').txt\" && printf 'new\\n' > \"new$(printf '\\351').txt\"");
	shell(repo, "git mv \"from$(printf '\\351').txt\" to-utf8.txt");
	const { sessionId, byPath } = await changes(repo);
	for (const [path, status] of [
		["tr\ufffd.txt", "modified"],
		["new\ufffd.txt", "untracked"],
	]) {
		assert.equal(byPath[path!]?.status, status, path);
		assert.match(byPath[path!].note, /not valid UTF-8/);
		const shown = await diff(sessionId, path!);
		assert.equal(shown.success, false, "not an empty diff as if nothing changed");
		assert.equal(shown.code, "invalid_command");
		assert.match(shown.error, /not valid UTF-8/);
	}
	assert.deepEqual([byPath["to-utf8.txt"].status, byPath["to-utf8.txt"].oldPath], ["renamed", "from\ufffd.txt"]);
	assert.match(byPath["to-utf8.txt"].note, /not valid UTF-8/, "renamed from such a name");
	const paths = ["tr\ufffd.txt", "new\ufffd.txt", "to-utf8.txt"];
	const files = await revert(sessionId, paths, Object.fromEntries(paths.map((path) => [path, byPath[path].token])));
	assert.deepEqual(
		files.map((file) => file.outcome),
		["refused", "refused", "refused"],
		"never claimed trashed",
	);
	assert.match(files[2].reason, /not valid UTF-8/);
	assert.equal(shell(repo, "cat new*.txt tr*.txt to-utf8.txt"), "new\nchanged\nmoved\n", "the files as they were");
});

test("an untracked link to a folder shows where it leads; a file gone since the listing is not_found for its diff and refused by a revert", async () => {
	const repo = baseRepository(tempRepoDir("skiff-odd-"));
	symlinkSync("/etc", join(repo, "etc-link"));
	writeFileSync(join(repo, "brief.txt"), "soon gone\n");
	const { sessionId, byPath } = await changes(repo);
	const link = await diff(sessionId, "etc-link");
	assert.match(link.data.diff, /^--- \/dev\/null\n\+\+\+ b\/etc-link\n@@ -0,0 \+1,?1? @@\n\+\/etc\n/, "not an empty diff");

	rmSync(join(repo, "brief.txt"));
	const gone = await diff(sessionId, "brief.txt");
	assert.equal(gone.success, false);
	assert.equal(gone.code, "not_found");
	const [done] = await revert(sessionId, ["brief.txt"], { "brief.txt": byPath["brief.txt"].token });
	assert.equal(done.outcome, "refused", "not claimed trashed");
});

test("one file named twice in a revert (two spellings) is reverted once; the second naming is refused, saying so", async () => {
	const repo = baseRepository(tempRepoDir("skiff-odd-"));
	writeFileSync(join(repo, "u.txt"), "untracked\n");
	const { sessionId, byPath } = await changes(repo);
	const token = byPath["u.txt"].token;
	const [first, second] = await revert(sessionId, ["u.txt", "./u.txt"], { "u.txt": token, "./u.txt": token });
	assert.equal(first.outcome, "trashed");
	assert.equal(readFileSync(first.trashedTo, "utf8"), "untracked\n");
	assert.deepEqual([second.path, second.outcome], ["./u.txt", "refused"]);
	assert.match(second.reason, /named twice/);
});

test("a folder of new files named as a whole: its diff and revert say it is a folder and changes go file by file; nothing is moved", async () => {
	const repo = baseRepository(tempRepoDir("skiff-odd-"));
	mkdirSync(join(repo, "made", "deeper"), { recursive: true });
	writeFileSync(join(repo, "made", "deeper", "x.txt"), "x\n");
	const { sessionId, list } = await changes(repo);
	assert.deepEqual(
		list.files.map((file: any) => file.path),
		["made/deeper/x.txt"],
	);
	for (const path of ["made", "made/", "made/deeper"]) {
		const shown = await diff(sessionId, path);
		assert.equal(shown.code, "not_found");
		assert.match(shown.error, /is a folder, and changes are listed, diffed and reverted file by file/, path);
		const [done] = await revert(sessionId, [path], { [path]: "directory" });
		assert.equal(done.outcome, "refused");
		assert.match(done.reason, /is a folder/);
	}
	assert.equal(readFileSync(join(repo, "made", "deeper", "x.txt"), "utf8"), "x\n");
	const missing = await diff(sessionId, "nowhere");
	assert.doesNotMatch(missing.error, /folder/, "a path that is no folder is only not among the changes");
});

test("a rename whose old name holds a new file now: its revert is refused rather than writing over that file", async () => {
	const repo = baseRepository(tempRepoDir("skiff-odd-"));
	sh(repo, "mv", "a.txt", "b.txt");
	writeFileSync(join(repo, "a.txt"), "a new file under the old name\n");
	const { sessionId, byPath } = await changes(repo);
	assert.deepEqual([byPath["b.txt"].status, byPath["b.txt"].oldPath, byPath["a.txt"].status], ["renamed", "a.txt", "untracked"]);
	const [done] = await revert(sessionId, ["b.txt"], { "b.txt": byPath["b.txt"].token });
	assert.equal(done.outcome, "refused");
	assert.match(done.reason, /old name "a.txt" holds another file now/);
	assert.equal(readFileSync(join(repo, "a.txt"), "utf8"), "a new file under the old name\n", "not overwritten");
	assert.equal(readFileSync(join(repo, "b.txt"), "utf8"), "one\n", "nor the rename undone");

	// Once that file is dealt with (reverted: it goes to the trash), the rename reverts.
	const [moved] = await revert(sessionId, ["a.txt"], { "a.txt": byPath["a.txt"].token });
	assert.equal(moved.outcome, "trashed");
	const [back] = await revert(sessionId, ["b.txt"], { "b.txt": byPath["b.txt"].token });
	assert.equal(back.outcome, "restored");
	assert.equal(sh(repo, "status", "--porcelain"), "");
});

test("a revert never removes what stands where the base's file goes: a folder in its place, or a file in place of its folder", async () => {
	const repo = baseRepository(tempRepoDir("skiff-odd-"));
	mkdirSync(join(repo, "d"));
	writeFileSync(join(repo, "d", "e.txt"), "deep\n");
	sh(repo, "add", ".");
	sh(repo, "commit", "-q", "-m", "d");
	rmSync(join(repo, "a.txt"));
	mkdirSync(join(repo, "a.txt"));
	writeFileSync(join(repo, "a.txt", "inside.txt"), "a new file in a folder named like the old file\n");
	rmSync(join(repo, "d"), { recursive: true });
	writeFileSync(join(repo, "d"), "a new file named like the old folder\n");
	const { sessionId, byPath } = await changes(repo);
	assert.deepEqual([byPath["a.txt"].status, byPath["d/e.txt"].status], ["deleted", "deleted"]);
	const files = await revert(sessionId, ["a.txt", "d/e.txt"], { "a.txt": byPath["a.txt"].token, "d/e.txt": byPath["d/e.txt"].token });
	assert.deepEqual(
		files.map((file) => file.outcome),
		["refused", "refused"],
	);
	assert.match(files[0].reason, /a folder stands where the base has the file "a.txt"/);
	assert.match(files[1].reason, /"d" is a file now where the base has a folder/);
	assert.equal(readFileSync(join(repo, "a.txt", "inside.txt"), "utf8"), "a new file in a folder named like the old file\n");
	assert.equal(readFileSync(join(repo, "d"), "utf8"), "a new file named like the old folder\n");
});

test("outside git, a write through a linked folder that leads out: the old content is never read, kept, listed or diffed", async () => {
	const plain = tempRepoDir("skiff-odd-plain-");
	const away = tempRepoDir("skiff-odd-away-");
	writeFileSync(join(away, "settings.conf"), "password = hunter2\n");
	symlinkSync(away, join(plain, "linked"));
	writeFileSync(join(plain, "own.txt"), "mine\n");
	const { sessionId } = await client.ok({ type: "new_session", cwd: plain });
	const calls = [write("linked/settings.conf", "rewritten\n"), write("own.txt", "still mine\n")];
	const events = await client.turn(sessionId, `${calls.join("\n")}\nAFTER_TOOL Done.`);
	const results = events.filter((e) => e.type === "tool_execution_end").map((e: any) => e.result.details);
	const through = results.find((details) => "diffOmitted" in details);
	assert.match(through?.diffOmitted, /outside the working directory/, "the write's card gets no diff of a file outside");
	assert.ok(results.some((details) => "diff" in details), "a write inside still gets its diff");
	const { files } = await client.ok({ type: "changes_get", sessionId });
	assert.deepEqual(
		files.map((file: any) => file.path),
		["own.txt"],
		"not listed as a change of the working directory",
	);
	const shown = await diff(sessionId, "linked/settings.conf");
	assert.equal(shown.code, "not_found");
	const { sessionFile } = await client.ok({ type: "get_state", sessionId });
	assert.doesNotMatch(readFileSync(sessionFile, "utf8"), /hunter2/, "its content was not kept in the session");
});

test("outside git, a recorded file's folder replaced since by a link leading out: listed with a note, its new content never read", async () => {
	const plain = tempRepoDir("skiff-odd-plain-");
	const away = tempRepoDir("skiff-odd-away-");
	mkdirSync(join(plain, "sub"));
	writeFileSync(join(plain, "sub", "f.txt"), "before\n");
	writeFileSync(join(away, "f.txt"), "token = abc-outside-secret\n");
	const { sessionId } = await client.ok({ type: "new_session", cwd: plain });
	await client.turn(sessionId, `${write("sub/f.txt", "after\n")}\nAFTER_TOOL Done.`);
	rmSync(join(plain, "sub"), { recursive: true });
	symlinkSync(away, join(plain, "sub"));
	const { files } = await client.ok({ type: "changes_get", sessionId });
	assert.equal(files[0]?.path, "sub/f.txt");
	assert.match(files[0].note, /leads out of the working directory/);
	const shown = await diff(sessionId, "sub/f.txt");
	assert.doesNotMatch(JSON.stringify(shown), /outside-secret/);
	const [done] = await revert(sessionId, ["sub/f.txt"], { "sub/f.txt": files[0].token });
	assert.equal(done.outcome, "refused");
	assert.equal(readFileSync(join(away, "f.txt"), "utf8"), "token = abc-outside-secret\n", "nothing outside written");
});

test("a folder named ~ (a quoted mkdir \"~/x\" in the project) is a name like another: its files are diffed and reverted", async () => {
	const repo = baseRepository(tempRepoDir("skiff-odd-"));
	mkdirSync(join(repo, "~", "oops"), { recursive: true });
	writeFileSync(join(repo, "~", "oops", "made.txt"), "by a script that quoted ~\n");
	writeFileSync(join(repo, "~notes"), "an editor's file\n");
	const { sessionId, byPath } = await changes(repo);
	for (const path of ["~/oops/made.txt", "~notes"]) {
		const shown = await diff(sessionId, path);
		assert.equal(shown.success, true, `${path}: ${shown.error}`);
		assert.match(shown.data.diff, /^\+(by a script|an editor's)/m);
	}
	const files = await revert(sessionId, ["~/oops/made.txt", "~notes"], { "~/oops/made.txt": byPath["~/oops/made.txt"].token, "~notes": byPath["~notes"].token });
	assert.deepEqual(
		files.map((file) => file.outcome),
		["trashed", "trashed"],
	);
	assert.ok(!existsSync(join(repo, "~", "oops", "made.txt")) && !existsSync(join(repo, "~notes")));
});
