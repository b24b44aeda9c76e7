/**
 * A persona's continuity is read from the end of its archived transcripts, asynchronously and only as far as
 * its bounds need: the same text as reading every transcript whole, from transcripts too large to read whole,
 * and the event loop turns while it is read.
 */
import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
	CONTINUITY_MAX_BYTES,
	CONTINUITY_MAX_MESSAGES,
	CONTINUITY_MAX_SCAN_BYTES,
	continuityText,
	linesFromEnd,
} from "../../../src/features/personas/continuity.js";
import { tempDir } from "../../support/skiff-process.js";
import { turnsWhile } from "../../support/event-loop.js";

const message = (role: string, content: unknown) => JSON.stringify({ type: "message", message: { role, content } });

function personaRoot(): string {
	const root = tempDir();
	mkdirSync(join(root, "sessions"));
	return root;
}

/** Continuity as it was computed before: every transcript read whole, its lines split, the newest kept. */
function readWhole(root: string): string | undefined {
	const kept: string[] = [];
	let bytes = 0;
	const names = readdirSync(join(root, "sessions"))
		.filter((name) => name.endsWith(".jsonl"))
		.sort()
		.reverse();
	outer: for (const name of names) {
		const texts = readFileSync(join(root, "sessions", name), "utf8")
			.split("\n")
			.flatMap((line) => {
				try {
					const entry = JSON.parse(line);
					const { role, content } = entry.message ?? {};
					if (entry.type !== "message" || (role !== "user" && role !== "assistant")) return [];
					const text = typeof content === "string" ? content : Array.isArray(content) ? content.filter((p) => p?.type === "text").map((p) => p.text).join("\n") : "";
					return text.trim() ? [`${role}: ${text.trim()}`] : [];
				} catch {
					return [];
				}
			});
		for (let i = texts.length - 1; i >= 0; i--) {
			const size = Buffer.byteLength(texts[i]!) + 1;
			if (kept.length >= CONTINUITY_MAX_MESSAGES || bytes + size > CONTINUITY_MAX_BYTES) break outer;
			kept.push(texts[i]!);
			bytes += size;
		}
	}
	return kept.length ? `Your previous runs, most recent last (${kept.length} messages):\n${kept.reverse().join("\n")}` : undefined;
}

test("continuity read from the end is the text of reading each transcript whole", async () => {
	const root = personaRoot();
	assert.equal(await continuityText(root), undefined, "no transcripts: no continuity");
	// Lines longer than a read (64 KiB), characters of several bytes across the reads' edges, entries that are not
	// messages, a last line without a newline, and a message larger than the whole bound.
	const older = [
		message("user", "the first run's ask ✓"),
		JSON.stringify({ type: "message", message: { role: "toolResult", content: "é".repeat(70_000) } }),
		message("assistant", [{ type: "thinking", thinking: "hidden" }, { type: "text", text: "answer one" }, { type: "toolCall", arguments: "ü".repeat(50_000) }]),
		"not json at all",
		message("user", "ask two"),
	];
	writeFileSync(join(root, "sessions", "2024-01-01T00-00-00-000Z_job-a.jsonl"), `${older.join("\n")}\n`);
	assert.equal(await continuityText(root), readWhole(root));
	assert.match((await continuityText(root))!, /user: the first run's ask ✓\nassistant: answer one\nuser: ask two$/);

	const newer = Array.from({ length: 120 }, (_, i) => message(i % 2 ? "assistant" : "user", `run two, message ${i}: ${"ẞ".repeat(i * 7)}`));
	writeFileSync(join(root, "sessions", "2024-01-02T00-00-00-000Z_job-b.jsonl"), newer.join("\n"));
	const text = await continuityText(root);
	assert.equal(text, readWhole(root));
	assert.ok(Buffer.byteLength(text!) <= CONTINUITY_MAX_BYTES + 100, "within the byte bound");

	writeFileSync(join(root, "sessions", "2024-01-03T00-00-00-000Z_job-c.jsonl"), `${message("user", "x".repeat(CONTINUITY_MAX_BYTES))}\n`);
	assert.equal(await continuityText(root), readWhole(root));
	assert.equal(await continuityText(root), undefined, "a newest message over the bound stops it, as before");
});

test("continuity comes from the end of a transcript far too large to read whole, and the event loop turns meanwhile", async (t) => {
	const root = personaRoot();
	const path = join(root, "sessions", "2024-01-01T00-00-00-000Z_job-big.jsonl");
	t.after(() => rmSync(root, { recursive: true, force: true }));
	// 3 GiB of nothing (a sparse file: no disk is used), then the run's messages: more than the bounds keep.
	writeFileSync(path, "");
	truncateSync(path, 3 * 1024 ** 3);
	appendFileSync(path, `\n${Array.from({ length: 300 }, (_, i) => message("assistant", `tail message ${i}`)).join("\n")}\n`);
	assert.throws(() => readFileSync(path), /ERR_FS_FILE_TOO_LARGE|RangeError/, "reading it whole is not even possible");
	const { value, turns } = await turnsWhile(continuityText(root));
	assert.ok(turns > 0, "the event loop turned while continuity was read");
	assert.match(value!, new RegExp(`^Your previous runs, most recent last \\(${CONTINUITY_MAX_MESSAGES} messages\\):\\nassistant: tail message 100\\n`));
	assert.match(value!, /assistant: tail message 299$/);
});

test("at most CONTINUITY_MAX_SCAN_BYTES of transcripts are read looking for messages", async (t) => {
	const root = personaRoot();
	t.after(() => rmSync(root, { recursive: true, force: true }));
	writeFileSync(join(root, "sessions", "2024-01-01T00-00-00-000Z_job-old.jsonl"), `${message("user", "from the older run")}\n`);
	const path = join(root, "sessions", "2024-01-02T00-00-00-000Z_job-new.jsonl");
	writeFileSync(path, `${message("user", "before the long output")}\n`);
	// A tool result longer than the scan bound between the newest run's start and its last messages.
	appendFileSync(path, `${JSON.stringify({ type: "message", message: { role: "toolResult", content: "" } }).slice(0, -3)}`);
	truncateSync(path, CONTINUITY_MAX_SCAN_BYTES + 1024);
	appendFileSync(path, `"}}\n${message("user", "late ask")}\n${message("assistant", "late answer")}\n`);
	assert.equal(await continuityText(root), "Your previous runs, most recent last (2 messages):\nuser: late ask\nassistant: late answer");
});

test("lines from the end: every line, last first, whatever the reads' edges", async () => {
	const path = join(tempDir(), "lines.txt");
	const lines = ["", "a", "ü".repeat(40_000), "", "b".repeat(64 * 1024 - 1), "c".repeat(64 * 1024), "last without newline"];
	writeFileSync(path, lines.join("\n"));
	const read: string[] = [];
	for await (const line of linesFromEnd(path, { bytes: Number.POSITIVE_INFINITY })) read.push(line);
	assert.deepEqual(read, [...lines].reverse());
	const none: string[] = [];
	for await (const line of linesFromEnd(join(tempDir(), "missing"), { bytes: 1024 })) none.push(line);
	assert.deepEqual(none, [], "a file that cannot be read gives no lines");
});
