/** Tree nodes from a real pi SessionManager: kinds, folding links, labels, and previews that never leak a secret. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { preview, SessionTreeView, TREE_PREVIEW_CHARS } from "../../../../src/agent/pi/session-tree.js";
import { TreeEvents } from "../../../../src/agent/pi/tree-events.js";
import { SessionRecorder } from "../../../../src/agent/pi/recorder.js";
import type { RuntimeEvent } from "../../../../src/agent/types.js";

const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
const user = (text: string) => ({ role: "user" as const, content: [{ type: "text" as const, text }], timestamp: Date.now() });
const assistant = (content: unknown[], stopReason = "stop") =>
	({ role: "assistant", content, api: "openai-completions", provider: "fake", model: "m", usage, stopReason, timestamp: Date.now() }) as never;
const result = (toolCallId: string, toolName: string, text: string, isError = false) =>
	({ role: "toolResult", toolCallId, toolName, content: [{ type: "text", text }], isError, timestamp: Date.now() }) as never;

test("every entry becomes a node: kinds, order, and tool results linked to the turn that called them", () => {
	const manager = SessionManager.inMemory("/p");
	manager.appendModelChange("fake", "m");
	manager.appendThinkingLevelChange("off");
	const ask = manager.appendMessage(user("read two files"));
	const turn = manager.appendMessage(
		assistant([
			{ type: "text", text: "" },
			{ type: "toolCall", id: "c1", name: "read", arguments: { path: "a" } },
			{ type: "toolCall", id: "c2", name: "read", arguments: { path: "b" } },
		]),
	);
	const first = manager.appendMessage(result("c1", "read", "alpha"));
	const second = manager.appendMessage(result("c2", "read", "missing", true));
	const answer = manager.appendMessage(assistant([{ type: "text", text: "done" }], "aborted"));
	manager.appendCustomMessageEntry("memory-context", "hidden context", false);
	manager.appendMessage({ role: "bashExecution", command: "ls -la", output: "x", exitCode: 0, cancelled: false, truncated: false, timestamp: Date.now() } as never);
	manager.appendCompaction("summary text", ask, 1234);
	manager.appendSessionInfo("named");
	manager.appendCustomEntry("todo", { x: 1 });
	const view = new SessionTreeView(manager);
	const { nodes, leafId } = view.tree();
	assert.deepEqual(
		nodes.map((n) => n.kind),
		["model_change", "thinking_level_change", "user", "assistant", "toolResult", "toolResult", "assistant", "custom_message", "bashExecution", "compaction", "session_info", "custom"],
	);
	assert.equal(leafId, nodes.at(-1)!.id);
	const byId = new Map(nodes.map((n) => [n.id, n]));
	assert.deepEqual(byId.get(turn)!.toolCalls, [
		{ id: "c1", name: "read" },
		{ id: "c2", name: "read" },
	]);
	assert.equal(byId.get(turn)!.preview, "→ read, read", "a turn without text shows its calls");
	assert.equal(byId.get(first)!.turnId, turn);
	assert.equal(byId.get(second)!.turnId, turn, "a later parallel result walks up past its sibling");
	assert.deepEqual([byId.get(second)!.toolName, byId.get(second)!.isError, byId.get(second)!.toolCallId], ["read", true, "c2"]);
	assert.equal(byId.get(answer)!.stopReason, "aborted");
	assert.equal(byId.get(answer)!.turnId, undefined);
	assert.equal(nodes[0]!.preview, "fake/m");
	assert.equal(nodes[7]!.hidden, true);
	assert.equal(nodes[8]!.preview, "$ ls -la");
	assert.equal(nodes[9]!.preview, "Compacted 1234 tokens: summary text");
	assert.equal(nodes[10]!.preview, "named");
});

test("labels are read on every build; built nodes are kept per entry", () => {
	const manager = SessionManager.inMemory("/p");
	const ask = manager.appendMessage(user("hello"));
	const view = new SessionTreeView(manager);
	const before = view.tree().nodes[0]!;
	assert.equal(view.tree().nodes[0], before, "the same node object while nothing changed");
	manager.appendLabelChange(ask, "start");
	const labelled = view.tree();
	assert.equal(labelled.nodes[0]!.label, "start");
	assert.deepEqual({ kind: labelled.nodes[1]!.kind, targetId: labelled.nodes[1]!.targetId, preview: labelled.nodes[1]!.preview }, { kind: "label", targetId: ask, preview: "start" });
	manager.appendLabelChange(ask, undefined);
	const cleared = view.tree();
	assert.equal(cleared.nodes[0]!.label, undefined);
	assert.equal(cleared.nodes[2]!.preview, "(label cleared)");
});

test("previews: one line, bounded, redacted before they are cut, and never half a secret", () => {
	assert.equal(preview("  two\n\tlines  "), "two lines");
	const long = preview("word ".repeat(500));
	assert.equal(long.length, TREE_PREVIEW_CHARS + 1);
	assert.ok(long.endsWith("…"));
	assert.equal(preview("key sk-ant-api03-abcdefghijklmnopqrstu end"), "key [REDACTED] end");
	// A long secret redacted early pulls later text into view: a secret cut at the scan limit must not follow it.
	const pem = `-----BEGIN RSA PRIVATE KEY-----\n${"A".repeat(500)}\n-----END RSA PRIVATE KEY-----`;
	const straddling = `${pem} ${"x".repeat(600 - pem.length - 12)} sk-ant-api03-abcdefghijklmnopqrstuvwxyz`;
	const shown = preview(straddling);
	assert.ok(!/sk-ant|abcdefgh/.test(shown), shown);
	assert.ok(shown.startsWith("[REDACTED]"));
	// A surrogate pair is never cut in half.
	const emoji = preview(`${"a".repeat(TREE_PREVIEW_CHARS - 1)}😀tail`);
	assert.ok(!/[\uD800-\uDBFF]…$/.test(emoji));
});

test("previews: a reply that is one enormous word shows its start, and a secret in it still never shows", () => {
	const word = preview("Qx7".repeat(5000));
	assert.equal(word, `${"Qx7".repeat(5000).slice(0, TREE_PREVIEW_CHARS)}…`);
	const secret = preview(`${"x".repeat(20)}/sk-ant-api03-${"abcdefgh".repeat(100)}`);
	assert.ok(!/sk-ant|abcdefgh/.test(secret), secret);
	assert.ok(secret.startsWith("xxxx"));
});

test("tree events: entries appended in one tick go out together; collected ones are held for the caller", async () => {
	const manager = SessionManager.inMemory("/p");
	const recorder = new SessionRecorder(manager);
	const events: RuntimeEvent[] = [];
	const tree = new TreeEvents(new SessionTreeView(manager), manager, (e) => events.push(e));
	recorder.onAppend((entry) => tree.appended(entry));
	manager.appendMessage(user("one"));
	manager.appendMessage(user("two"));
	await Promise.resolve();
	assert.equal(events.length, 1);
	assert.equal(events[0]!.reason, "appended");
	assert.deepEqual((events[0]!.nodes as Array<{ preview: string }>).map((n) => n.preview), ["one", "two"]);
	const { nodes } = tree.collectNow(() => manager.appendLabelChange(manager.getLeafId()!, "x"));
	await Promise.resolve();
	assert.equal(events.length, 1, "the collected entry is not reported as appended");
	assert.equal(nodes[0]!.kind, "label");
	await assert.rejects(
		tree.collect(async () => {
			manager.appendMessage(user("three"));
			throw new Error("failed midway");
		}),
		/failed midway/,
	);
	await Promise.resolve();
	assert.equal(events.length, 2, "what a failed change appended is still reported");
	assert.equal((events[1]!.nodes as Array<{ preview: string }>)[0]!.preview, "three");
});
