/**
 * The message actions' view of the tree (web/src/state/message-places.ts, answer-usage.ts): which entry each
 * transcript message is, its prompt and its siblings; the tip a switch goes to; and each answer's footer.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Message, TreeNode } from "../../../src/client/index.js";
import { answerUsage } from "../../../web/src/state/answer-usage.js";
import { branchTip, messagePlaces, type RecordedTree, toolResultIds } from "../../../web/src/state/message-places.js";

type Spec = Pick<TreeNode, "id" | "parentId" | "kind">;

function tree(specs: Spec[], leafId: string | null): RecordedTree {
	return { nodes: new Map(specs.map((s) => [s.id, { preview: s.id, timestamp: "2026-01-01T00:00:00.000Z", ...s } as TreeNode])), order: specs.map((s) => s.id), leafId };
}

const usage = (input: number, output: number, cost = 0) => ({ input, output, cacheRead: 0, cacheWrite: 0, totalTokens: input + output, cost: { total: cost } });
const user = (text: string): Message => ({ role: "user", content: text, timestamp: 1 });
const answer = (text: string, stopReason: "stop" | "toolUse" = "stop", used = usage(10, 5)): Message =>
	({ role: "assistant", content: [{ type: "text", text }], provider: "fake", model: "m", usage: used, stopReason, timestamp: 2 }) as Message;
const toolResult = (): Message => ({ role: "toolResult", toolCallId: "c", toolName: "bash", content: [], isError: false, timestamp: 3 });

/** m (model change) → u1 → a1 → u2 → a2, with u2' → a2' and u2'' sent again from a1 (u2'' got no answer). */
const SPECS: Spec[] = [
	{ id: "m", parentId: null, kind: "model_change" },
	{ id: "u1", parentId: "m", kind: "user" },
	{ id: "a1", parentId: "u1", kind: "assistant" },
	{ id: "u2", parentId: "a1", kind: "user" },
	{ id: "a2", parentId: "u2", kind: "assistant" },
	{ id: "u2b", parentId: "a1", kind: "user" },
	{ id: "a2b", parentId: "u2b", kind: "assistant" },
	{ id: "lab", parentId: "a2b", kind: "label" },
	{ id: "u2c", parentId: "a1", kind: "user" },
];

test("prompts and answers are paired with the entries on the path to the leaf, with their prompt and siblings", () => {
	const messages = [user("one"), answer("1"), user("two again"), answer("2 again")];
	const places = messagePlaces(tree(SPECS, "lab"), messages);
	assert.deepEqual(
		messages.map((m) => places.get(m) && { id: places.get(m)!.id, prompt: places.get(m)!.promptId, siblings: places.get(m)!.siblings }),
		[
			{ id: "u1", prompt: "u1", siblings: ["u1"] },
			{ id: "a1", prompt: "u1", siblings: ["a1"] },
			{ id: "u2b", prompt: "u2b", siblings: ["u2", "u2b", "u2c"] },
			{ id: "a2b", prompt: "u2b", siblings: ["a2b"] },
		],
	);
	const other = [user("one"), answer("1"), user("two"), answer("2")];
	const before = messagePlaces(tree(SPECS, "a2"), other);
	assert.equal(before.get(other[2]!)!.id, "u2");
	assert.notEqual(before.get(other[2]!)!.key, places.get(messages[2]!)!.key, "another version, another key: the view renders again");
	assert.equal(before.get(other[1]!)!.key, places.get(messages[1]!)!.key, "the same entry, the same key: the view skips it");
});

test("tool results and other messages are skipped; a compaction leaves the oldest entries unpaired", () => {
	const specs: Spec[] = [
		{ id: "u1", parentId: null, kind: "user" },
		{ id: "a1", parentId: "u1", kind: "assistant" },
		{ id: "c", parentId: "a1", kind: "compaction" },
		{ id: "u2", parentId: "c", kind: "user" },
		{ id: "a2", parentId: "u2", kind: "assistant" },
		{ id: "t2", parentId: "a2", kind: "toolResult" },
		{ id: "a3", parentId: "t2", kind: "assistant" },
	];
	const summary = { role: "compactionSummary", summary: "s", timestamp: 0 } as unknown as Message;
	const messages = [summary, user("two"), answer("calls", "toolUse"), toolResult(), answer("done")];
	const places = messagePlaces(tree(specs, "a3"), messages);
	assert.deepEqual([...places.values()].map((p) => `${p.id}<${p.promptId}`), ["u2<u2", "a2<u2", "a3<u2"]);
});

test("a transcript that does not fit the path (not reloaded yet after a move) is not paired, or only up to the mismatch", () => {
	// The leaf moved to a1 (before u2), the transcript still shows u2 and its answer.
	assert.equal(messagePlaces(tree(SPECS, "a1"), [user("one"), answer("1"), user("two"), answer("2")]).size, 0);
	// The leaf is on u2c (no answer yet), the transcript still ends with an answer: nothing after the mismatch.
	assert.equal(messagePlaces(tree(SPECS, "u2c"), [user("one"), answer("1"), answer("2")]).size, 0);
	assert.equal(messagePlaces(tree([], null), [user("one")]).size, 0);
	assert.equal(messagePlaces(tree(SPECS, "gone"), [user("one")]).size, 0, "an unknown leaf pairs nothing");
});

test("only the newest messages are placed when asked, with the prompt the oldest of them answers, as when all are", () => {
	const specs: Spec[] = [];
	const messages: Message[] = [];
	for (let i = 0; i < 10; i++) {
		specs.push({ id: `u${i}`, parentId: i === 0 ? null : `a${i - 1}`, kind: "user" }, { id: `a${i}`, parentId: `u${i}`, kind: "assistant" });
		messages.push(user(`q${i}`), answer(`a${i}`));
	}
	specs.push({ id: "u9b", parentId: "a8", kind: "user" }); // another version of the last prompt
	const recorded = tree(specs, "a9");
	const all = messagePlaces(recorded, messages);
	const newest = messagePlaces(recorded, messages, 3);
	// The newest three are a9, u9 and a8; a8 answers u8, placed too.
	assert.deepEqual([...newest.values()].map((p) => p.id), ["u8", "a8", "u9", "a9"]);
	for (const [message, place] of newest) assert.deepEqual(place, all.get(message));
	assert.deepEqual(newest.get(messages[18]!)!.siblings, ["u9", "u9b"]);
	assert.equal(messagePlaces(recorded, messages, 50).size, 20, "more asked for than there are: all");
});

test("a branch's tip is its newest entry, or the entry itself", () => {
	const t = tree(SPECS, "a2");
	assert.equal(branchTip(t, "u2"), "a2");
	assert.equal(branchTip(t, "u2b"), "lab");
	assert.equal(branchTip(t, "u2c"), "u2c");
	assert.equal(branchTip(t, "a1"), "u2c", "the newest entry anywhere under it");
});

test("each answer that ends a turn shows its model, the tokens of the turn's calls, and its cost when known", () => {
	const first = answer("calls", "toolUse", usage(1200, 30, 0.001));
	const last = answer("done", "stop", usage(1500, 250, 0.002));
	const cheap = answer("free", "stop", usage(3, 4));
	const lines = answerUsage([user("a"), first, toolResult(), last, user("b"), cheap]);
	assert.equal(lines.get(first), undefined, "a call that continues with tools has none");
	assert.equal(lines.get(last), "m · 2.7k in · 280 out · $0.0030");
	assert.equal(lines.get(cheap), "m · 3 in · 4 out");
	const bare = { role: "assistant", content: [], provider: "", model: "x", stopReason: "stop", timestamp: 0 } as unknown as Message;
	assert.equal(answerUsage([bare]).get(bare), "x · 0 in · 0 out", "a message without usage (a guest's relay) still reads");
});

test("each tool result of the branch shown is found by its call's id (get_image's entry), not one of another branch", () => {
	const result = (id: string, parentId: string, toolCallId: string) => ({ id, parentId, kind: "toolResult" as const, toolCallId });
	const t = tree([{ id: "u", parentId: null, kind: "user" }, { id: "a", parentId: "u", kind: "assistant" }, result("r1", "a", "call_1"), result("old", "a", "call_2"), result("r2", "r1", "call_2"), { id: "b", parentId: "r2", kind: "assistant" }], "b");
	assert.deepEqual([...toolResultIds(t)], [["call_2", "r2"], ["call_1", "r1"]]);
	assert.deepEqual([...toolResultIds({ ...t, leafId: null })], []);
});
