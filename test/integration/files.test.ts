/**
 * The project's files over /ws, against the real service: `files_list` and `files_read` on a session whose
 * working directory is a git repository (ignored entries marked) and on one outside git (a note instead);
 * paging a 10,000-entry folder; text, non-UTF-8 text, an image, SVG as text, a 50 MiB sparse file, a binary,
 * secrets masked; every escape refused with its code; and a ping from another client answered while big
 * folders are listed. Every answer is checked against the command's result schema.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Compile } from "typebox/compile";
import { SkiffClient, SkiffCommandError } from "../../src/client/node.js";
import { FilesListResultSchema, FilesReadResultSchema } from "../../src/features/files/schemas.js";
import { baseRepository, removeTempRepos, sh, tempRepoDir } from "../support/git-repo.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { pingsWhile } from "../support/pings-while.js";
import { TestClient } from "../support/ws-client.js";

const listCheck = Compile(FilesListResultSchema);
const readCheck = Compile(FilesReadResultSchema);
const BIG = 10_000;
/** A 1×1 PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

let repo: string;
let plain: string;
let inGit: SkiffProcess;
let outsideGit: SkiffProcess;
let client: TestClient;
let other: TestClient;

before(async () => {
	repo = baseRepository();
	writeFileSync(join(repo, ".gitignore"), "node_modules/\n*.log\n");
	mkdirSync(join(repo, "node_modules", "pkg"), { recursive: true });
	writeFileSync(join(repo, "node_modules", "pkg", "index.js"), "module.exports = 1;\n");
	writeFileSync(join(repo, "debug.log"), "noise\n");
	writeFileSync(join(repo, "tracked.log"), "tracked despite the pattern\n");
	sh(repo, "add", "-f", "tracked.log");
	writeFileSync(join(repo, ":(top)weird"), "a name that looks like a pathspec\n");
	writeFileSync(join(repo, "two\nlines.log"), "a name with a line break\n");
	writeFileSync(join(repo, ":!x.log"), "a name git would take for an excluding pathspec\n");
	mkdirSync(join(repo, "src"));
	writeFileSync(join(repo, "src", "main.ts"), "export const answer = 42;\n");
	writeFileSync(join(repo, "latin1.txt"), Buffer.from("caf\xe9 cr\xe8me\n", "latin1"));
	writeFileSync(join(repo, "pixel.png"), PNG);
	writeFileSync(join(repo, "logo.svg"), '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>\n');
	writeFileSync(join(repo, "blob.bin"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 1, 2, 3]));
	writeFileSync(join(repo, ".env"), "OPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwx\n");
	writeFileSync(join(repo, "huge.dat"), "");
	truncateSync(join(repo, "huge.dat"), 50 * 1024 * 1024); // sparse: nothing written
	writeFileSync(join(repo, "long.txt"), "é".repeat(1024 * 1024 + 7)); // 2 MiB of two-byte characters
	mkdirSync(join(repo, "big"));
	for (let i = 0; i < BIG; i++) writeFileSync(join(repo, "big", `f${String(i).padStart(5, "0")}.txt`), "");
	const away = tempRepoDir("skiff-files-away-");
	writeFileSync(join(away, "secret.txt"), "not yours\n");
	symlinkSync(join(away, "secret.txt"), join(repo, "escape"));

	plain = tempDir("skiff-files-plain-");
	writeFileSync(join(plain, "notes.md"), "# Notes\n");
	mkdirSync(join(plain, "docs"));

	inGit = await startSkiff({ agentDir: tempDir(), cwd: repo });
	outsideGit = await startSkiff({ agentDir: tempDir(), cwd: plain });
	client = await TestClient.connect(inGit.wsUrl);
	other = await TestClient.connect(inGit.wsUrl);
});

after(async () => {
	await inGit?.stop();
	await outsideGit?.stop();
	removeTempRepos();
});

async function list(params: Record<string, unknown> = {}, on = client): Promise<any> {
	const data = await on.ok({ type: "files_list", ...params });
	assert.ok(listCheck.Check(data), JSON.stringify([...listCheck.Errors(data)].slice(0, 2)));
	return data;
}

async function read(path: string): Promise<any> {
	const data = await client.ok({ type: "files_read", path });
	assert.ok(readCheck.Check(data), JSON.stringify([...readCheck.Errors(data)].slice(0, 2)));
	return data;
}

test("the root of a git repository: folders first, then by name; ignored entries marked, tracked ones not", async () => {
	const root = await list();
	assert.equal(root.path, "");
	assert.equal(root.gitNote, undefined);
	const names = root.entries.map((e: { name: string }) => e.name);
	assert.deepEqual(names.slice(0, 4), [".git", "big", "node_modules", "src"]);
	const byName = new Map<string, any>(root.entries.map((e: { name: string }) => [e.name, e]));
	assert.equal(byName.get("node_modules").ignored, true);
	assert.equal(byName.get("debug.log").ignored, true);
	assert.equal(byName.get("tracked.log").ignored, false, "git never reports a tracked file ignored");
	assert.equal(byName.get("a.txt").ignored, false);
	assert.equal(byName.get(":(top)weird").ignored, false, "a name, not a pathspec");
	assert.equal(byName.get("two\nlines.log").ignored, true, "any name, even with a line break");
	assert.equal(byName.get(":!x.log").ignored, true, "a name, not pathspec magic");
	assert.equal(byName.get(".git").ignored, undefined);
	assert.equal(byName.get("a.txt").size, 4);
	assert.equal(byName.get("escape").kind, "symlink");
	assert.equal(byName.get("escape").target, "outside");

	const modules = await list({ path: "node_modules/pkg" });
	assert.deepEqual(modules.entries.map((e: { path: string; ignored: boolean }) => [e.path, e.ignored]), [["node_modules/pkg/index.js", true]]);
});

test("outside git the entries carry no ignored mark, and a note says why", async () => {
	const away = await TestClient.connect(outsideGit.wsUrl);
	try {
		const root = await list({}, away);
		assert.match(root.gitNote, /not a git repository/);
		assert.deepEqual(root.entries.map((e: { name: string; ignored?: boolean }) => [e.name, e.ignored]), [["docs", undefined], ["notes.md", undefined]]);
		const notes = await away.ok({ type: "files_read", path: "notes.md" });
		assert.equal(notes.language, "markdown");
	} finally {
		away.socket.close();
	}
});

test("a 10,000-entry folder is paged: 500 by default, every entry exactly once in order", async () => {
	const first = await list({ path: "big" });
	assert.equal(first.entries.length, 500);
	assert.equal(first.total, BIG);
	assert.equal(first.nextOffset, 500);
	assert.equal(first.complete, true);
	const seen: string[] = [];
	for (let offset: number | undefined = 0; offset !== undefined; ) {
		const page: { entries: Array<{ name: string }>; nextOffset?: number } = await list({ path: "big", offset, limit: 1000 });
		seen.push(...page.entries.map((e) => e.name));
		offset = page.nextOffset;
	}
	assert.equal(seen.length, BIG);
	assert.deepEqual(seen, [...seen].sort());
	const past = await list({ path: "big", offset: BIG + 5 });
	assert.deepEqual([past.entries.length, past.nextOffset], [0, undefined]);
	const tooMany = await client.request({ type: "files_list", path: "big", limit: 1001 });
	assert.equal(tooMany.code, "invalid_command");
});

test("paged by cursor: entries removed or added before it between pages neither hide one nor show one twice; a bad cursor is refused", async () => {
	const folder = join(repo, "paged");
	const name = (i: number) => `p${String(i).padStart(3, "0")}`;
	mkdirSync(folder);
	for (let i = 0; i < 5; i++) mkdirSync(join(folder, `dir${i}`));
	for (let i = 0; i < 40; i++) writeFileSync(join(folder, name(i)), "");
	const first = await list({ path: "paged", limit: 15 });
	assert.deepEqual([first.entries.at(-1).name, first.nextOffset], [name(9), 15]);
	// Before the next page is read: five of the entries shown go, two new ones sort before the cursor.
	for (let i = 0; i < 5; i++) rmSync(join(folder, name(i)));
	writeFileSync(join(folder, "a-new"), "");
	mkdirSync(join(folder, "a-new-dir"));
	const seen: string[] = first.entries.map((entry: { name: string }) => entry.name);
	for (let after: string | undefined = first.nextAfter; after !== undefined; ) {
		const page = await list({ path: "paged", after, limit: 15 });
		seen.push(...page.entries.map((entry: { name: string }) => entry.name));
		after = page.nextAfter;
	}
	const files = Array.from({ length: 40 }, (_, i) => name(i));
	assert.deepEqual(seen, [...["dir0", "dir1", "dir2", "dir3", "dir4"], ...files], "every entry there throughout, once, in order");
	// An offset shifts instead (what the cursor is for): five gone and two new before it, the page at 15 skips three.
	assert.equal((await list({ path: "paged", offset: 15, limit: 1 })).entries[0].name, name(13));

	for (const bad of [{ after: "p010" }, { after: "d:a/b" }, { after: "x:p010" }, { after: "f:p010", offset: 3 }, { after: "" }]) {
		const refused = await client.request({ type: "files_list", path: "paged", ...bad });
		assert.equal(refused.code, "invalid_command", JSON.stringify(bad));
		assert.match(String(refused.error), /`after`/);
	}
});

test("another client's ping is answered while big folders are listed", async () => {
	const listings = Array.from({ length: 6 }, () => client.ok({ type: "files_list", path: "big", limit: 1000 }));
	const delays = await pingsWhile(other, Promise.all(listings));
	assert.ok(delays.length >= 1);
	// Loosely: only that pings were answered during the listings (the machine is shared; no timing is asserted).
	console.log(`ping while listing: ${delays.length} answered, slowest ${Math.max(...delays).toFixed(1)} ms`);
});

test("text comes with its language; non-UTF-8 is decoded honestly; secrets are masked", async () => {
	const main = await read("src/main.ts");
	assert.deepEqual([main.kind, main.language, main.encoding, main.truncated, main.redacted, main.text], ["text", "typescript", "utf-8", false, false, "export const answer = 42;\n"]);
	const latin = await read("latin1.txt");
	assert.equal(latin.encoding, "invalid-utf-8");
	assert.equal(latin.text, "caf\ufffd cr\ufffdme\n");
	const env = await read(".env");
	assert.equal(env.language, "dotenv");
	assert.equal(env.redacted, true);
	assert.doesNotMatch(env.text, /sk-abcdef/);
	const svg = await read("logo.svg");
	assert.deepEqual([svg.kind, svg.language], ["text", "xml"], "SVG is active content: text, never an image");
});

test("an image comes as data with its type from its bytes; a binary and a 50 MiB file as their size only", async () => {
	const png = await read("pixel.png");
	assert.deepEqual([png.kind, png.mimeType, png.size], ["image", "image/png", PNG.length]);
	assert.equal(png.data, PNG.toString("base64"));
	const blob = await read("blob.bin");
	assert.deepEqual(blob, { kind: "binary", path: "blob.bin", size: 10 });
	const huge = await read("huge.dat");
	assert.deepEqual(huge, { kind: "binary", path: "huge.dat", size: 50 * 1024 * 1024 });
	const long = await read("long.txt");
	assert.equal(long.truncated, true);
	assert.equal(long.size, readFileSync(join(repo, "long.txt")).length);
	assert.equal(long.text, "é".repeat(512 * 1024), "the first MiB, cut between characters");
});

test("escapes are refused with their code and the path named; nothing is read outside", async () => {
	const cases: Array<[Record<string, unknown>, string, RegExp]> = [
		[{ type: "files_read", path: "../outside" }, "forbidden", /"\.\.\/outside" goes up/],
		[{ type: "files_read", path: "/etc/passwd" }, "forbidden", /absolute path/],
		[{ type: "files_read", path: "a.txt\u0000.png" }, "invalid_command", /NUL byte/],
		[{ type: "files_read", path: "escape" }, "forbidden", /"escape" leads outside/],
		[{ type: "files_read", path: ".git/config" }, "forbidden", /git's own folder/],
		[{ type: "files_list", path: ".git" }, "forbidden", /git's own folder/],
		[{ type: "files_read", path: "nope.txt" }, "not_found", /"nope.txt" does not exist/],
		[{ type: "files_list", path: "a.txt" }, "invalid_command", /not a folder/],
		[{ type: "files_read" }, "invalid_command", /path/],
		[{ type: "files_list", offset: -1 }, "invalid_command", /offset/],
	];
	for (const [command, code, message] of cases) {
		const response = await client.request(command);
		assert.equal(response.success, false, JSON.stringify(command));
		assert.equal(response.code, code, JSON.stringify(command));
		assert.match(response.error!, message, JSON.stringify(command));
	}
	assert.doesNotMatch(JSON.stringify(client.responses), /not yours/);
});

test("the typed client has both commands", async () => {
	const typed = new SkiffClient({ url: inGit.wsUrl });
	try {
		await typed.connect();
		const page = await typed.commands.files_list({ path: "src" });
		assert.deepEqual(page.entries.map((entry) => entry.path), ["src/main.ts"]);
		const file = await typed.commands.files_read({ path: "src/main.ts" });
		assert.equal(file.kind === "text" && file.language, "typescript");
		const refused = await typed.commands.files_read({ path: "../x" }).catch((error: unknown) => error);
		assert.ok(refused instanceof SkiffCommandError);
		assert.equal(refused.code, "forbidden");
	} finally {
		typed.close();
	}
});
