/** The recorder on a real pi SessionManager, with file operations that fail like a full disk. */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { REAL_FILES, type RecorderFiles, RecordingError, SessionRecorder } from "../../../../src/agent/pi/recorder.js";

/** Real files, except that while `full` is set every write stores half its bytes and throws ENOSPC. */
function fillableDisk() {
	const disk = { full: false, replaced: [] as string[] };
	const enospc = () => Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
	const files: RecorderFiles = {
		...REAL_FILES,
		replace(path, content) {
			if (disk.full) throw enospc();
			disk.replaced.push(path);
			REAL_FILES.replace(path, content);
		},
		append(path, text) {
			if (disk.full) {
				REAL_FILES.append(path, text.slice(0, Math.floor(text.length / 2))); // a torn line
				throw enospc();
			}
			REAL_FILES.append(path, text);
		},
		truncate(path, size) {
			if (disk.full) throw enospc();
			REAL_FILES.truncate(path, size);
		},
	};
	return { disk, files };
}

const user = (text: string, timestamp: number) => ({ role: "user" as const, content: [{ type: "text" as const, text }], timestamp });

function linesOf(path: string): Array<{ type: string; message?: { content: Array<{ text: string }> } }> {
	return readFileSync(path, "utf8")
		.split("\n")
		.filter(Boolean)
		.map((line) => JSON.parse(line)); // throws on a torn line
}

test("a new session file is written whole (atomically) with its first message, then appended", () => {
	const { disk, files } = fillableDisk();
	const manager = SessionManager.create(mkdtempSync(join(tmpdir(), "skiff-rec-")), mkdtempSync(join(tmpdir(), "skiff-rec-s-")));
	new SessionRecorder(manager, files);
	manager.appendMessage(user("first", 1));
	manager.appendMessage(user("second", 2));
	const file = manager.getSessionFile()!;
	assert.deepEqual(disk.replaced, [file]);
	assert.deepEqual(linesOf(file).map((e) => e.type), ["session", "message", "message"]);
});

test("a failed append is reported, fails the waiting prompt, and is retried whole after a torn line is cut off", async () => {
	const { disk, files } = fillableDisk();
	const manager = SessionManager.create(mkdtempSync(join(tmpdir(), "skiff-rec-")), mkdtempSync(join(tmpdir(), "skiff-rec-s-")));
	const recorder = new SessionRecorder(manager, files);
	const changes: Array<string | undefined> = [];
	recorder.onChange((failure) => changes.push(failure?.systemCode));
	manager.appendMessage(user("one", 1));
	await recorder.waitForUserMessage(0);

	disk.full = true;
	const before = recorder.userMessages();
	const waiting = recorder.waitForUserMessage(before);
	manager.appendMessage(user("two", 2));
	manager.appendMessage(user("three", 3));
	await assert.rejects(waiting, (error: unknown) => error instanceof RecordingError && error.systemCode === "ENOSPC" && error.code === "io_error" && /no space left/.test(error.message));
	assert.equal(recorder.lastFailure?.systemCode, "ENOSPC");
	assert.deepEqual(changes, ["ENOSPC"], "reported once per failure, not per write");

	disk.full = false;
	manager.appendMessage(user("four", 4));
	assert.equal(recorder.lastFailure, undefined);
	assert.deepEqual(changes, ["ENOSPC", undefined], "the recovery is reported");
	const texts = linesOf(manager.getSessionFile()!)
		.filter((e) => e.type === "message")
		.map((e) => e.message!.content[0]!.text);
	assert.deepEqual(texts, ["one", "two", "three", "four"], "nothing accepted is lost, in order, no torn line");
	await recorder.waitForUserMessage(before); // "two" is on disk now
});

test("the first write of a new file failing leaves no file, and the next write creates it whole", () => {
	const { disk, files } = fillableDisk();
	const manager = SessionManager.create(mkdtempSync(join(tmpdir(), "skiff-rec-")), mkdtempSync(join(tmpdir(), "skiff-rec-s-")));
	const recorder = new SessionRecorder(manager, files);
	disk.full = true;
	manager.appendMessage(user("lost?", 1));
	assert.equal(recorder.lastFailure?.systemCode, "ENOSPC");
	disk.full = false;
	manager.appendMessage(user("no", 2));
	const texts = linesOf(manager.getSessionFile()!).filter((e) => e.type === "message").map((e) => e.message!.content[0]!.text);
	assert.deepEqual(texts, ["lost?", "no"]);
});

test("a file another program appended to is never cut back: the recorder refuses to append until reloaded", () => {
	const { files } = fillableDisk();
	const manager = SessionManager.create(mkdtempSync(join(tmpdir(), "skiff-rec-")), mkdtempSync(join(tmpdir(), "skiff-rec-s-")));
	const recorder = new SessionRecorder(manager, files);
	manager.appendMessage(user("ours", 1));
	const file = manager.getSessionFile()!;
	const theirs = `${JSON.stringify({ type: "message", id: "pi00001", parentId: null, timestamp: "2026-11-23T00:00:00.000Z", message: user("theirs", 2) })}\n`;
	assert.equal(recorder.changedOnDisk(), false, "our own writes are not a change");
	REAL_FILES.append(file, theirs);
	assert.equal(recorder.changedOnDisk(), true, "the change is seen before anything is appended");
	manager.appendMessage(user("ours again", 3));
	assert.equal(recorder.unrecorded, 1, "the refused entry waits, unwritten");
	assert.equal(recorder.lastFailure?.systemCode, "ECHANGED");
	assert.equal(recorder.lastFailure?.code, "conflict");
	assert.ok(readFileSync(file, "utf8").endsWith(theirs), "their entry is intact");
});

test("a wait that starts after its entry's write failed fails at once, not at the wait's bound (nothing retries it)", async () => {
	const { disk, files } = fillableDisk();
	const manager = SessionManager.create(mkdtempSync(join(tmpdir(), "skiff-rec-")), mkdtempSync(join(tmpdir(), "skiff-rec-s-")));
	const recorder = new SessionRecorder(manager, files);
	manager.appendMessage(user("one", 1));
	disk.full = true;
	const two = user("two", 2);
	manager.appendMessage(two); // its append fails: the prompt's own wait has failed already
	const settledNow = (wait: Promise<void>) =>
		Promise.race([wait.then(() => "resolved", (error: RecordingError) => error.systemCode), new Promise((resolve) => setImmediate(() => resolve("pending")))]);
	// The check before the model call, and a prompt's wait that begins once its message was handed over.
	assert.equal(await settledNow(recorder.waitUntilRecorded(two)), "ENOSPC");
	assert.equal(await settledNow(recorder.waitForUserMessage(1)), "ENOSPC");
	// A message not handed over yet still waits: its own write may succeed.
	disk.full = false;
	const three = recorder.waitForUserMessage(2);
	assert.equal(await settledNow(three), "pending");
	manager.appendMessage(user("three", 3));
	await three;
});

test("after the disk has room again, the next prompt is not failed by the old error", async () => {
	const { disk, files } = fillableDisk();
	const manager = SessionManager.create(mkdtempSync(join(tmpdir(), "skiff-rec-")), mkdtempSync(join(tmpdir(), "skiff-rec-s-")));
	const recorder = new SessionRecorder(manager, files);
	manager.appendMessage(user("one", 1));
	disk.full = true;
	manager.appendMessage(user("lost for now", 2));
	assert.equal(recorder.lastFailure?.systemCode, "ENOSPC");
	disk.full = false; // room again, but nothing written since: the failure is still the last word
	const waiting = recorder.waitForUserMessage(recorder.userMessages());
	manager.appendMessage(user("next prompt", 3));
	await waiting;
	assert.equal(recorder.lastFailure, undefined);
});

test("a torn tail left by our own failed append is not another program's change", () => {
	const { disk, files } = fillableDisk();
	const manager = SessionManager.create(mkdtempSync(join(tmpdir(), "skiff-rec-")), mkdtempSync(join(tmpdir(), "skiff-rec-s-")));
	const recorder = new SessionRecorder(manager, files);
	manager.appendMessage(user("one", 1));
	disk.full = true;
	manager.appendMessage(user("two", 2));
	assert.equal(recorder.changedOnDisk(), false);
	disk.full = false;
	manager.appendMessage(user("three", 3));
	assert.equal(recorder.changedOnDisk(), false);
	assert.equal(recorder.unrecorded, 0);
});

const newManager = () => SessionManager.create(mkdtempSync(join(tmpdir(), "skiff-rec-")), mkdtempSync(join(tmpdir(), "skiff-rec-s-")));

test("a new session gets its file with its first entry of the user's: a custom entry or a name, not the model it starts with", () => {
	for (const first of [
		(m: SessionManager) => m.appendCustomEntry("skiff.todo", { plan: 1 }),
		(m: SessionManager) => m.appendSessionInfo("Named before anything is said"),
	]) {
		const { disk, files } = fillableDisk();
		const manager = newManager();
		const recorder = new SessionRecorder(manager, files);
		manager.appendModelChange("fake", "fake-model");
		manager.appendThinkingLevelChange("off");
		assert.equal(recorder.onDisk, false, "the setup every session starts with is not worth a file");
		first(manager);
		assert.equal(recorder.onDisk, true);
		assert.deepEqual(disk.replaced, [manager.getSessionFile()], "written whole, atomically");
		assert.deepEqual(
			linesOf(manager.getSessionFile()!).map((e) => e.type),
			["session", "model_change", "thinking_level_change", manager.getLeafEntry()!.type],
		);
	}
});

test("appendOrRefuse: an entry the disk refuses is taken back whole (entries, leaf, listeners) and the failure thrown", () => {
	const { disk, files } = fillableDisk();
	const manager = newManager();
	const recorder = new SessionRecorder(manager, files);
	const heard: string[] = [];
	recorder.onAppend((entry) => heard.push((entry as { type: string }).type));
	manager.appendMessage(user("one", 1));
	const leaf = manager.getLeafId();
	const entries = manager.getEntries().length;

	disk.full = true;
	assert.throws(
		() => recorder.appendOrRefuse(() => manager.appendCustomEntry("skiff.todo", { plan: "refused" })),
		(error: unknown) => error instanceof RecordingError && error.systemCode === "ENOSPC" && error.code === "io_error",
	);
	assert.equal(manager.getLeafId(), leaf, "the leaf is back where it was");
	assert.equal(manager.getEntries().length, entries, "the entry is gone from the session");
	assert.equal(recorder.unrecorded, 0, "and from the backlog: no later write brings it back");
	assert.deepEqual(heard, ["message"], "nobody heard of it");

	disk.full = false;
	const id = recorder.appendOrRefuse(() => manager.appendCustomEntry("skiff.todo", { plan: "kept" }));
	assert.equal(manager.getLeafId(), id);
	assert.deepEqual(heard, ["message", "custom"]);
	const plans = linesOf(manager.getSessionFile()!)
		.filter((e) => e.type === "custom")
		.map((e) => (e as unknown as { data: { plan: string } }).data.plan);
	assert.deepEqual(plans, ["kept"], "the refused entry never reached the file, the torn tail was cut off");
});

test("appendOrRefuse on a new session whose first write fails leaves no file and nothing in memory", () => {
	const { disk, files } = fillableDisk();
	const manager = newManager();
	const recorder = new SessionRecorder(manager, files);
	disk.full = true;
	assert.throws(() => recorder.appendOrRefuse(() => manager.appendCustomEntry("skiff.goal", { event: 1 })), RecordingError);
	assert.equal(recorder.onDisk, false);
	assert.equal(manager.getEntries().length, 0);
	disk.full = false;
	recorder.appendOrRefuse(() => manager.appendCustomEntry("skiff.goal", { event: 2 }));
	assert.deepEqual(linesOf(manager.getSessionFile()!).map((e) => e.type), ["session", "custom"]);
});
