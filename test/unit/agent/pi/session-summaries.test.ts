/** Summaries kept while a file is unchanged (src/agent/pi/session-summaries.ts). */
import assert from "node:assert/strict";
import { appendFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { KEPT_FIRST_MESSAGE_MAX_CHARS, SummaryCache } from "../../../../src/agent/pi/session-summaries.js";
import { tempDir } from "../../../support/skiff-process.js";

const line = (value: unknown) => `${JSON.stringify(value)}\n`;
const user = (text: string) => line({ type: "message", id: "m", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: text, timestamp: 1 } });

test("a file is read again only when it changed; a long first message is returned whole but not kept", async () => {
	const dir = tempDir();
	const path = join(dir, "a.jsonl");
	writeFileSync(path, line({ type: "session", id: "a", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" }) + user("hello"));
	const cache = new SummaryCache();
	assert.equal((await cache.of([path]))[0]?.messageCount, 1);
	// Same size and time: the kept summary, even though the text under it differs (proof it was not read).
	writeFileSync(path, line({ type: "session", id: "a", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" }) + user("HELLO"));
	utimesSync(path, new Date(0), new Date(0));
	const cached = new SummaryCache();
	await cached.of([path]);
	writeFileSync(path, line({ type: "session", id: "a", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" }) + user("hello"));
	utimesSync(path, new Date(0), new Date(0));
	assert.equal((await cached.of([path]))[0]?.firstMessage, "HELLO", "unchanged size and time: not read again");
	appendFileSync(path, user("more"));
	assert.equal((await cached.of([path]))[0]?.messageCount, 2, "changed: read again");

	const long = join(dir, "b.jsonl");
	const text = "x".repeat(KEPT_FIRST_MESSAGE_MAX_CHARS + 1);
	writeFileSync(long, line({ type: "session", id: "b", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" }) + user(text));
	utimesSync(long, new Date(0), new Date(0));
	assert.equal((await cached.of([long]))[0]?.firstMessage, text);
	writeFileSync(long, line({ type: "session", id: "b", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" }) + user("y".repeat(text.length)));
	utimesSync(long, new Date(0), new Date(0));
	assert.equal((await cached.of([long]))[0]?.firstMessage[0], "y", "not kept: read again");
	assert.equal((await cached.of([join(dir, "gone.jsonl")])).length, 0);
});
