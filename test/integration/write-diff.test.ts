/**
 * A `write` card's diff, against the real service and the fake model: before each write inside the working
 * directory the changes feature reads what the file held, and the call's result gains `details.diff` (a
 * unified diff), `details.created` (a new file) or `details.diffOmitted` (why there is none), in git and
 * outside it, live (tool_execution_end) and in the session file (get_messages). An edit keeps pi's own diff;
 * a failed write, a write outside the working directory and one over the bounds add nothing misleading.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { MAX_WRITE_DIFF_BYTES } from "../../src/features/changes/write-diff.js";
import { type FakeOpenAiServer, startFakeOpenAi } from "../support/fake-openai.js";
import { fakeModelHome } from "../support/fake-model-home.js";
import { baseRepository, removeTempRepos, tempRepoDir } from "../support/git-repo.js";
import type { SkiffProcess } from "../support/skiff-process.js";
import { type Event, TestClient } from "../support/ws-client.js";

let model: FakeOpenAiServer;
let skiff: SkiffProcess;
let client: TestClient;
const plainDirs: string[] = [];

before(async () => {
	model = await startFakeOpenAi();
	skiff = await fakeModelHome(model.url).start();
	client = await TestClient.connect(skiff.wsUrl);
});

after(async () => {
	client?.close();
	await skiff?.stop();
	await model?.close();
	removeTempRepos();
	for (const dir of plainDirs) rmSync(dir, { recursive: true, force: true });
});

function plainDir(): string {
	const dir = realpathSync(mkdtempSync(join(tmpdir(), "skiff-write-diff-")));
	plainDirs.push(dir);
	return dir;
}

const edit = (path: string, oldText: string, newText: string) => `CALL edit ${JSON.stringify({ path, edits: [{ oldText, newText }] })}`;
const write = (path: string, content: string) => `CALL write ${JSON.stringify({ path, content })}`;

/** The tool results of one turn, in call order (pi runs the calls at once): live (tool_execution_end) and as recorded (get_messages). */
async function results(cwd: string, calls: string[]): Promise<{ live: Event[]; recorded: any[] }> {
	const { sessionId } = await client.ok({ type: "new_session", cwd });
	const events = await client.turn(sessionId, `${calls.join("\n")}\nAFTER_TOOL Done.`);
	const byCall = (a: any, b: any) => String(a.toolCallId).localeCompare(String(b.toolCallId), "en", { numeric: true });
	const live = events.filter((e) => e.type === "tool_execution_end").sort(byCall);
	assert.equal(live.length, calls.length);
	const { messages } = await client.ok({ type: "get_messages", sessionId });
	return { live, recorded: messages.filter((m: any) => m.role === "toolResult").sort(byCall) };
}

for (const where of ["in a git repository", "outside git"] as const) {
	test(`${where}: a write of an existing file carries its diff, a new file says so, an edit keeps pi's diff`, async () => {
		const dir = where === "outside git" ? plainDir() : baseRepository(tempRepoDir("skiff-write-diff-"));
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

test("a large write's diff is cut at a line's end and says so", async () => {
	const dir = plainDir();
	// Every tenth of 200 long lines changes: one hunk of over 200 KB, and few enough changes for jsdiff to be quick.
	const lines = (tag: string) => Array.from({ length: 200 }, (_, n) => `${n % 10 ? "same" : tag} line ${n} ${"-".repeat(1_000)}`).join("\n") + "\n";
	writeFileSync(join(dir, "long.txt"), lines("old"));
	const { live } = await results(dir, [write("long.txt", lines("new"))]);
	const details = live[0]!.result.details;
	assert.equal(details.diffOmitted, undefined);
	assert.equal(details.diffTruncated, true);
	assert.ok(Buffer.byteLength(details.diff) <= MAX_WRITE_DIFF_BYTES);
	assert.ok(details.diff.endsWith("\n"));
	assert.match(details.diff, /^--- a\/long.txt\n\+\+\+ b\/long.txt\n@@ /);
});
