import assert from "node:assert/strict";
import { test } from "node:test";
import type { JsonObject } from "../../../../src/agent/types.js";
import { MAX_TOOL_OUTPUT_BYTES } from "../../../../src/agent/feature-tool.js";
import {
	forkPointOf,
	type MainView,
	messagesSinceFork,
	PEEK_MAIN_DEFAULT_MESSAGES,
	PEEK_MESSAGE_MAX_CHARS,
	renderPeek,
} from "../../../../src/features/side-chat/peek-main.js";

const user = (text: string, timestamp = 1): JsonObject => ({ role: "user", content: [{ type: "text", text }], timestamp });

function view(messages: JsonObject[], extra: Partial<MainView> = {}): MainView {
	return { messages: () => messages, streamingMessage: () => undefined, isBusy: false, ...extra };
}

test("the messages since the fork: after the fork's last message while it is held, else those recorded later", () => {
	const before = [user("a", 1), user("b", 2)];
	const fork = forkPointOf(before);
	const later = [...before, user("c", 3)];
	assert.deepEqual(messagesSinceFork(later, fork), { messages: [later[2]], byTime: false });
	const rewritten = [{ role: "compactionSummary", summary: "s", timestamp: 5 }, user("b", 2), user("d", 6)];
	assert.deepEqual(messagesSinceFork(rewritten, fork), { messages: [rewritten[0], rewritten[2]], byTime: true });
	assert.deepEqual(messagesSinceFork(later, forkPointOf([])), { messages: later, byTime: false }, "forked from an empty conversation");
});

test("each kind of message reads as text; hidden context is left out; secrets are redacted", () => {
	const fork = forkPointOf([]);
	const messages: JsonObject[] = [
		user("please look, Bearer abcdefghijklmnop"),
		{
			role: "assistant",
			content: [
				{ type: "thinking", thinking: "private thoughts" },
				{ type: "text", text: "Reading it." },
				{ type: "toolCall", id: "c1", name: "read", arguments: { path: "a.txt" } },
			],
			stopReason: "toolUse",
		},
		{ role: "toolResult", toolCallId: "c1", toolName: "read", content: [{ type: "text", text: "-----BEGIN RSA PRIVATE KEY-----\nxyz\n-----END RSA PRIVATE KEY-----" }], isError: true },
		{ role: "custom", customType: "memory.recall", content: "hidden memory", display: false },
		{ role: "bashExecution", command: "ls", output: "a.txt\n" },
		{ role: "assistant", content: [{ type: "text", text: "half" }], stopReason: "aborted" },
	];
	const text = renderPeek(view(messages, { isBusy: true, streamingMessage: () => ({ role: "assistant", content: [{ type: "text", text: "typing more" }] }) }), fork, 20);
	assert.match(text, /^5 new messages in the main conversation since the fork\.\n\nThe main agent is working right now\./);
	assert.match(text, /\[user\]\nplease look, Bearer \[REDACTED\]/);
	assert.match(text, /\[assistant\]\nReading it\.\n\(calls read \{"path":"a.txt"\}\)/);
	assert.match(text, /\[tool result: read, failed\]\n\[REDACTED\]/);
	assert.match(text, /\[the user's shell command\]\n\$ ls\na\.txt/);
	assert.match(text, /\[assistant\]\nhalf\n\(stopped by the user\)/);
	assert.match(text, /\[assistant, still streaming\]\ntyping $/, "its unfinished word waits");
	assert.doesNotMatch(text, /private thoughts|hidden memory|xyz/);
});

test("the reply still streaming never shows the first part of a secret", () => {
	for (const partial of ["npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6", "hf_QwErTyUiOp1234567890AsDf", "Authorization: Bearer ", '{"password": "hunter2hun']) {
		const streaming = () => ({ role: "assistant", content: [{ type: "text", text: `Here: ${partial}` }] });
		const text = renderPeek(view([], { isBusy: true, streamingMessage: streaming }), forkPointOf([]), 20);
		assert.ok(text.includes("[assistant, still streaming]\nHere: "), text);
		for (const piece of ["a1B2c3D4", "QwErTyUi", "hunter2"]) assert.ok(!text.includes(piece), `${partial}: ${text}`);
	}
});

test("bounded: the newest messages by count, each cut, the whole within the tool output bound", () => {
	const fork = forkPointOf([]);
	const many = Array.from({ length: 60 }, (_, i) => user(`message ${i}`));
	const byDefault = renderPeek(view(many), fork, PEEK_MAIN_DEFAULT_MESSAGES);
	assert.match(byDefault, /^60 new messages .*; the last 20 shown \(ask for more with `last`, up to 50\)\./);
	assert.match(byDefault, /message 59$/);
	assert.doesNotMatch(byDefault, /message 39\n/);
	assert.match(byDefault, /message 40\n/);

	const long = Array.from({ length: 50 }, (_, i) => user(`${i}:${"é".repeat(PEEK_MESSAGE_MAX_CHARS * 2)}`));
	const bounded = renderPeek(view(long), fork, 50);
	assert.ok(Buffer.byteLength(bounded) <= MAX_TOOL_OUTPUT_BYTES, `${Buffer.byteLength(bounded)} bytes`);
	assert.match(bounded, /\n49:é+… \[cut\]$/, "the newest message is kept, cut");
	const shown = Number(/the last (\d+) shown/.exec(bounded)?.[1]);
	assert.ok(shown >= 1 && shown < 50, `${shown} shown`);
});

test("a message of hundreds of KB: cut, its secrets masked, one straddling the cut too", () => {
	const key = "ghp_abcdefghijklmnopqrstuvwxyz012345";
	const filler = "-eyJAAAAAAAA ".repeat(25_000); // the redactor's worst case once, and 300 KB
	for (const offset of [2, 10, key.length - 3]) {
		const before = "w ".repeat((PEEK_MESSAGE_MAX_CHARS - offset) / 2) + ((PEEK_MESSAGE_MAX_CHARS - offset) % 2 ? " " : "");
		const text = renderPeek(view([user(`${before}${key} ${filler}`)]), forkPointOf([]), 1);
		assert.match(text, /… \[cut\]$/);
		assert.ok(!text.includes("ghp_"), `cut ${offset} characters into the token: …${text.slice(-30)}`);
	}
});
