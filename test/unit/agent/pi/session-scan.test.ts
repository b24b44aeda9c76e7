/** Reading one session file for a list or a search (src/agent/pi/session-scan.ts). */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
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
