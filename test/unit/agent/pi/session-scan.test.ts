/** Reading one session file for a list or a search (src/agent/pi/session-scan.ts). */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { closeSync, openSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { firstHit, snippetOf, summarize, WHOLE_READ_MAX_BYTES } from "../../../../src/agent/pi/session-scan.js";
import { tempDir } from "../../../support/skiff-process.js";

const header = (id: string, extra: object = {}) => ({ type: "session", version: 3, id, timestamp: "2026-01-01T00:00:00.000Z", cwd: "/work/p", ...extra });
const message = (role: string, content: unknown, timestamp = 1_767_225_600_000) => ({ type: "message", id: `m${Math.random()}`, parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role, content, timestamp } });
const origin = (sessionId: string) => ({ type: "custom", id: "o1", parentId: null, customType: "skiff.origin", data: { kind: "job", sessionId, parentSessionId: "the-parent", ownerId: "job-7" } });

function file(name: string, entries: unknown[], tail = ""): string {
	const path = join(tempDir(), name);
	writeFileSync(path, `${entries.map((e) => JSON.stringify(e)).join("\n")}\n${tail}`);
	return path;
}

test("a summary counts the user and assistant messages only, and takes the kind a feature recorded", async () => {
	const path = file("2026_child.jsonl", [
		header("child", { parentSession: "/s/--p--/2025_the-parent.jsonl" }),
		origin("child"),
		message("user", "first question"),
		message("assistant", [{ type: "toolCall", id: "t", name: "read", arguments: {} }]),
		message("toolResult", [{ type: "text", text: "file text" }]),
		message("custom", "hidden context"),
		message("bashExecution", "ls"),
		message("assistant", [{ type: "text", text: "an answer" }]),
		{ type: "session_info", id: "n", parentId: null, name: "  Named  " },
	], "not json\n");
	const summary = await summarize(path);
	assert.equal(summary?.messageCount, 3);
	assert.equal(summary?.firstMessage, "first question");
	assert.equal(summary?.name, "Named");
	assert.equal(summary?.kind, "job");
	assert.equal(summary?.parentSessionId, "the-parent");
	assert.equal(summary?.ownerId, "job-7");
});

test("a copied origin record (a fork of a job's session) does not count: a fork is a user's session", async () => {
	const fork = await summarize(file("f.jsonl", [header("fork-id", { parentSession: "/s/--p--/2026-01_child.jsonl" }), origin("child"), message("user", "q")]));
	assert.equal(fork?.kind, "fork");
	assert.equal(fork?.parentSessionId, "child", "from the parent's file name");
	assert.equal(fork?.ownerId, undefined);
	const plain = await summarize(file("p.jsonl", [header("plain"), message("user", "q")]));
	assert.equal(plain?.kind, "user");
	assert.equal(plain?.parentSessionId, undefined);
	assert.equal(await summarize(file("x.jsonl", [message("user", "no header")])), undefined);
});

test("a search's first hit is a snippet of the message text around it, with quotes too; a large file is streamed", async () => {
	const path = file("s.jsonl", [header("s"), message("user", "title line"), message("assistant", [{ type: "text", text: `${"a ".repeat(100)}He said "Hello, World" twice${" b".repeat(100)}` }])]);
	assert.match((await firstHit(path, 'said "hello', true))!, /^…( a)+ He said "Hello, World" twice( b)+…$/);
	assert.equal(await firstHit(path, "title line", true), undefined, "the title is looked at apart");
	assert.equal(await firstHit(path, "title line", false), "title line");
	const big = file("big.jsonl", [header("big"), ...Array.from({ length: 400 }, (_, i) => message("user", `${"filler ".repeat(200)}${i === 399 ? "LAST-ONE" : ""}`))]);
	assert.ok((await import("node:fs")).statSync(big).size > WHOLE_READ_MAX_BYTES);
	assert.match((await firstHit(big, "last-one", false))!, /LAST-ONE$/);
	assert.equal((await summarize(big))?.messageCount, 400);
	assert.equal(snippetOf("abc", "zz"), undefined);
	assert.equal(snippetOf("line one\nline two", "one"), "line one line two");
});

/** A goal journal record (`skiff.goal`) as the goal feature writes it. */
const goalRecord = (id: string, parentId: string | null, revision: number, change: object, version = 1) => ({
	type: "custom",
	id,
	parentId,
	customType: "skiff.goal",
	data: { version, event: { revision, at: "2026-01-01T00:00:02.000Z", change } },
});
const entry = (id: string, parentId: string | null) => ({ ...message("user", "q"), id, parentId });

test("a summary carries the goal's lifecycle as the active branch (the file's last entry up to the root) recorded it", async () => {
	const created = goalRecord("g1", "m1", 1, { kind: "created", id: "goal-a", objective: "ship it" });
	const paused = goalRecord("g3", "g2", 3, { kind: "paused", reason: "budget_exhausted" });
	const lines = [header("goals"), entry("m1", null), created, goalRecord("g2", "g1", 2, { kind: "usage", tokens: 5, wallTimeMs: 1 }), paused];
	assert.deepEqual((await summarize(file("g.jsonl", lines)))?.goal, { lifecycle: "paused", pauseReason: "budget_exhausted" });
	// Usage and pins after the pause change nothing; a resume makes it active again.
	const pinned = goalRecord("g4", "g3", 4, { kind: "pinned", text: "note" });
	assert.deepEqual((await summarize(file("g2.jsonl", [...lines, pinned])))?.goal, { lifecycle: "paused", pauseReason: "budget_exhausted" });
	assert.deepEqual((await summarize(file("g3.jsonl", [...lines, goalRecord("g4", "g3", 4, { kind: "resumed", tokenBudget: 99 })])))?.goal, { lifecycle: "active" });
	// The conversation moved back to before the pause and went on: the branch holds the goal active.
	assert.deepEqual((await summarize(file("g4.jsonl", [...lines, entry("m2", "g1")])))?.goal, { lifecycle: "active" });
	// A branch without a record (moved back to before the goal), a file without a goal.
	assert.equal((await summarize(file("g5.jsonl", [...lines, entry("m2", null)])))?.goal, undefined);
	assert.equal((await summarize(file("g6.jsonl", [header("none"), entry("m1", null)])))?.goal, undefined);
});

test("a goal record this version does not read ends the reading there, as the goal's replay does; looping parents end it too", async () => {
	const created = goalRecord("g1", null, 1, { kind: "created", id: "goal-a", objective: "x" });
	const newer = goalRecord("g2", "g1", 2, { kind: "paused", reason: "manual" }, 2);
	assert.deepEqual((await summarize(file("n.jsonl", [header("n"), created, newer])))?.goal, { lifecycle: "active" });
	const odd = goalRecord("g2", "g1", 2, { kind: "paused", reason: "tired" });
	assert.deepEqual((await summarize(file("o.jsonl", [header("o"), created, odd])))?.goal, { lifecycle: "active" });
	const loop = [header("l"), { ...created, parentId: "g2" }, goalRecord("g2", "g1", 2, { kind: "paused", reason: "manual" })];
	assert.deepEqual((await summarize(file("l.jsonl", loop)))?.goal, { lifecycle: "paused", pauseReason: "manual" }, "read from the leaf up, each entry once");
});

/** Writes a session whose third line is a user message of text, eight 5 MiB images and more text: ~40 MiB on one line. */
function sessionWithHugeLine(): { path: string; lineBytes: number } {
	const path = join(tempDir(), "huge.jsonl");
	const fd = openSync(path, "w");
	const line = (entry: unknown) => writeSync(fd, `${JSON.stringify(entry)}\n`);
	line(header("huge"));
	line(message("user", "the first question"));
	let lineBytes = writeSync(fd, `{"type":"message","id":"m2","parentId":null,"timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","timestamp":2,"content":[{"type":"text","text":"look at BEFORE-IMAGES"}`);
	const mib = Buffer.alloc(1024 * 1024, "A");
	for (let image = 0; image < 8; image++) {
		lineBytes += writeSync(fd, ',{"type":"image","mimeType":"image/png","data":"');
		for (let i = 0; i < 5; i++) lineBytes += writeSync(fd, mib);
		lineBytes += writeSync(fd, '"}');
	}
	lineBytes += writeSync(fd, ',{"type":"text","text":"and \\"AFTER-IMAGES\\" too"}]}}\n');
	line(message("assistant", [{ type: "text", text: "the NEXT-LINE answer" }]));
	closeSync(fd);
	return { path, lineBytes };
}

test("a line of eight 5 MiB images is read past, not into memory: its text and the lines after it are still found", async () => {
	const { path, lineBytes } = sessionWithHugeLine();
	assert.ok(lineBytes > 40 * 1024 * 1024);
	// The warm-up file has a line long enough to be cut, so the code and V8's young generation are ready before measuring.
	const warmUp = file("warm.jsonl", [header("w"), message("user", [{ type: "text", text: "warm" }, { type: "image", mimeType: "image/png", data: "A".repeat(3 * 1024 * 1024) }])]);
	const output = execFileSync(process.execPath, ["--import", "tsx", join(import.meta.dirname, "../../../support/scan-memory.ts"), path, warmUp, "before-images", '"after-images"', "next-line"], { encoding: "utf8" });
	const { grownBytes, messageCount, firstMessage, hits } = JSON.parse(output) as { grownBytes: number; messageCount: number; firstMessage: string; hits: string[] };
	assert.equal(messageCount, 3, "the huge line's message is counted");
	assert.equal(firstMessage, "the first question");
	assert.deepEqual(hits, ['look at BEFORE-IMAGES and "AFTER-IMAGES" too', 'look at BEFORE-IMAGES and "AFTER-IMAGES" too', "the NEXT-LINE answer"]);
	// One summary and three searches of the file: peak memory grows by far less than the line (it grew by ten times it).
	assert.ok(grownBytes < 16 * 1024 * 1024, `peak resident memory grew by ${(grownBytes / 1024 / 1024).toFixed(1)} MiB reading a ${(lineBytes / 1024 / 1024).toFixed(0)} MiB line`);
});
