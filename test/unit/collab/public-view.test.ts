/** What guests may see: secrets redacted, paths shortened, internal details dropped, sizes bounded. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { CUT_MARKER, DEPTH_MARKER, MAX_PUBLIC_DEPTH, MAX_PUBLIC_STRING_CHARS, PublicView } from "../../../src/collab/public-view.js";
import { snapshotText } from "../../../src/collab/snapshot.js";
import type { WireEvent } from "../../../src/protocol/coalesce.js";

const view = new PublicView({ cwd: "/home/ann/code/app", home: "/home/ann" });
const event = (fields: Record<string, unknown>) => ({ sessionId: "s", seq: 1, ...fields }) as WireEvent;

test("paths: inside the session's folder relative, elsewhere in the home folder from ~, others unchanged", () => {
	assert.equal(view.text("edit /home/ann/code/app/src/x.ts now"), "edit src/x.ts now");
	assert.equal(view.text("cd /home/ann/code/app && ls"), "cd . && ls");
	assert.equal(view.text("/home/ann/code/app2/y.ts"), "~/code/app2/y.ts", "a sibling folder is not the session's");
	assert.equal(view.text("cat /home/ann/.ssh/config"), "cat ~/.ssh/config");
	assert.equal(view.text("/home/ann"), "~");
	assert.equal(view.text("/home/annie/x"), "/home/annie/x", "another user's home is not ann's");
	assert.equal(view.text("/etc/hosts"), "/etc/hosts");
	assert.equal(new PublicView({ cwd: "/srv/a.b+c", home: undefined }).text("/srv/a.b+c/d and /srv/aXb+c"), "d and /srv/aXb+c", "special characters are literal");
});

test("secrets are redacted and long strings cut", () => {
	assert.equal(view.text("token=abcd1234efgh and sk-abcdefghijklmnopqrstuvwx"), "token=[REDACTED] and [REDACTED]");
	const small = new PublicView({ maxStringChars: 10 });
	assert.equal(small.text("x".repeat(25)), `${"x".repeat(10)}${CUT_MARKER}`);
});

test("a string of megabytes: only what guests get is looked at, and a secret or path straddling the cut never shows in half", () => {
	const tail = " x".repeat(2 * 1024 * 1024);
	const key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz";
	for (const offset of [3, 10, key.length - 2]) {
		const text = `${"w ".repeat((MAX_PUBLIC_STRING_CHARS - offset) / 2)}${(MAX_PUBLIC_STRING_CHARS - offset) % 2 ? " " : ""}${key}${tail}`;
		const shown = view.text(text);
		assert.ok(shown.endsWith(CUT_MARKER));
		assert.ok(!shown.includes("sk-a"), `cut ${offset} characters into the key: …${shown.slice(-30)}`);
		assert.ok(shown.length <= MAX_PUBLIC_STRING_CHARS + CUT_MARKER.length);
	}
	const path = `${"w ".repeat(MAX_PUBLIC_STRING_CHARS / 2 - 5)}/home/ann/code/app/src/x.ts${tail}`;
	assert.ok(!view.text(path).includes("/home/ann"), "the session's folder is shortened across the cut");
});

test("internal fields go at any depth; images become a marker; deep values are cut off", () => {
	const shown = view.value({
		details: { fullOutputPath: "/tmp/x" },
		nested: { signature: "s", thinkingSignature: "t", responseId: "r", usage: { cost: 1 }, keep: "/home/ann/code/app/k" },
		content: [{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }],
	});
	assert.deepEqual(shown, { nested: { keep: "k" }, content: [{ type: "text", text: "[image]" }] });
	let deep: unknown = "bottom";
	for (let i = 0; i < MAX_PUBLIC_DEPTH + 5; i++) deep = { deeper: deep };
	assert.ok(JSON.stringify(view.value(deep)).includes(DEPTH_MARKER));
});

test("only the transcript's and the run's events reach guests; hidden context never does", () => {
	for (const type of ["recording_failed", "recording_restored", "tree_changed", "session_stats", "settings_changed", "collab_updated", "session_unloaded", "session_reloaded"]) {
		assert.equal(view.event(event({ type })), undefined, type);
	}
	assert.equal(view.event(event({ type: "message_end", message: { role: "custom", customType: "memory", content: "x", display: false, timestamp: 1 } })), undefined);
	assert.ok(view.event(event({ type: "message_end", message: { role: "custom", customType: "note", content: "x", display: true, timestamp: 1 } })));
	assert.deepEqual(view.event(event({ type: "model_changed", model: { provider: "p", id: "m", name: "M", baseUrl: "http://10.0.0.1/v1", headers: { a: "b" } } })), {
		type: "model_changed",
		sessionId: "s",
		seq: 1,
		model: { provider: "p", id: "m", name: "M" },
	});
	assert.deepEqual(view.event(event({ type: "message_update", assistantMessageEvent: { type: "text_delta", delta: "in /home/ann/code/app/z" } })), {
		sessionId: "s",
		seq: 1,
		type: "message_update",
		assistantMessageEvent: { type: "text_delta", delta: "in z" },
	});
});

test("the session view names the model, never its files, folder or how the model is reached", () => {
	assert.deepEqual(
		view.session({
			sessionId: "s",
			sessionFile: "/home/ann/.skiff/agent/sessions/x.jsonl",
			sessionName: "fix /home/ann/code/app/bug",
			cwd: "/home/ann/code/app",
			model: { provider: "p", id: "m", baseUrl: "http://10.0.0.1/v1" },
			thinkingLevel: "high",
			isStreaming: true,
			isCompacting: false,
			messageCount: 3,
			pendingMessageCount: 1,
			recordingError: "EACCES /home/ann",
		}),
		{ name: "fix bug", model: { provider: "p", id: "m" }, thinkingLevel: "high", isStreaming: true, isCompacting: false, messageCount: 3, pendingMessageCount: 1 },
	);
});

test("a snapshot fits its frame: the oldest messages are left out and counted", () => {
	const messages = Array.from({ length: 50 }, (_, i) => ({ role: "user", content: `${i}:${"m".repeat(1000)}`, timestamp: i }));
	const reading = { sessionId: "s", state: { thinkingLevel: "off" }, messages, seq: 9 };
	const whole = JSON.parse(snapshotText(view, reading, 1024 * 1024));
	assert.equal(whole.messages.length, 50);
	assert.equal(whole.omittedMessages, 0);
	const limit = 10_000;
	const text = snapshotText(view, reading, limit);
	assert.ok(Buffer.byteLength(text) <= limit);
	const cut = JSON.parse(text);
	assert.ok(cut.messages.length > 0 && cut.messages.length < 10);
	assert.equal(cut.omittedMessages + cut.messages.length, 50);
	assert.equal(cut.messages.at(-1).content, whole.messages.at(-1).content, "the newest are kept");
	assert.equal(cut.seq, 9);
});
