/** The session tree's layout (web/src/state/tree-rows.ts): folding, branches, filters, search and the active entry. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { TreeNode } from "../../../src/client/index.js";
import { type TreeFilter, type TreeRowsInput, treeRows } from "../../../web/src/state/tree-rows.js";

type Spec = Partial<TreeNode> & Pick<TreeNode, "id" | "parentId" | "kind">;

function input(specs: Spec[], leafId: string | null, options: Partial<TreeRowsInput> = {}): TreeRowsInput {
	const nodes = new Map(specs.map((s) => [s.id, { preview: s.id, timestamp: "2026-01-01T00:00:00.000Z", ...s } as TreeNode]));
	return { nodes, order: specs.map((s) => s.id), leafId, filter: "all", query: "", collapsed: new Set(), openTurns: new Set(), ...options };
}

const layout = (i: TreeRowsInput) => treeRows(i).rows.map((r) => `${"  ".repeat(r.depth)}${r.node.id}${r.current ? " *" : ""}`);

/** u1 → a1 (calls a tool) → t1 → a2 → u2 → a3, and u3 → a4 re-sent from a2 (a branch at a2). */
const BRANCHED: Spec[] = [
	{ id: "u1", parentId: null, kind: "user" },
	{ id: "a1", parentId: "u1", kind: "assistant", toolCalls: [{ id: "c1", name: "bash" }] },
	{ id: "t1", parentId: "a1", kind: "toolResult", toolCallId: "c1", toolName: "bash", turnId: "a1" },
	{ id: "a2", parentId: "t1", kind: "assistant" },
	{ id: "u2", parentId: "a2", kind: "user" },
	{ id: "a3", parentId: "u2", kind: "assistant" },
	{ id: "u3", parentId: "a2", kind: "user", label: "retry" },
	{ id: "a4", parentId: "u3", kind: "assistant" },
	{ id: "l1", parentId: "a4", kind: "label", targetId: "u3" },
];

test("a linear conversation stays at one depth; tool results fold under their turn", () => {
	const specs = BRANCHED.slice(0, 6);
	assert.deepEqual(layout(input(specs, "a3")), ["u1", "a1", "a2", "u2", "a3 *"]);
	const rows = treeRows(input(specs, "a3")).rows;
	assert.equal(rows[1]!.toolResults, 1);
	assert.equal(rows[1]!.expanded, false);
	assert.ok(rows.every((r) => r.onPath && r.setSize === 5));
	assert.deepEqual(layout(input(specs, "a3", { openTurns: new Set(["a1"]) })), ["u1", "a1", "  t1", "a2", "u2", "a3 *"]);
	const open = treeRows(input(specs, "a3", { openTurns: new Set(["a1"]) })).rows;
	assert.equal(open[2]!.parent, 1);
	assert.equal(open[2]!.folded, true);
	assert.equal(open[1]!.expanded, true);
});

test("at a branch point the active branch continues the line; the others hang under it and fold", () => {
	// The active leaf is in the second branch: it continues at depth 0, the first hangs under a2.
	assert.deepEqual(layout(input(BRANCHED, "l1")), ["u1", "a1", "a2", "  u2", "  a3", "u3", "a4 *"]);
	const rows = treeRows(input(BRANCHED, "l1")).rows;
	const a2 = rows[2]!;
	assert.equal(a2.sideBranches, 1);
	assert.equal(a2.expanded, true);
	assert.equal(rows[3]!.branchStart, true);
	assert.equal(rows[3]!.parent, 2);
	assert.deepEqual([rows[3]!.setSize, rows[3]!.posInSet, rows[4]!.posInSet], [2, 1, 2]);
	assert.equal(rows[3]!.onPath, false);
	assert.equal(rows[5]!.onPath, true);
	assert.deepEqual(layout(input(BRANCHED, "l1", { collapsed: new Set(["a2"]) })), ["u1", "a1", "a2", "u3", "a4 *"]);
	// With the leaf in the first branch, that one continues instead.
	assert.deepEqual(layout(input(BRANCHED, "a3")), ["u1", "a1", "a2", "  u3", "  a4", "u2", "a3 *"]);
});

test("filters hide entries and hang what they held under the nearest shown ancestor; label entries never show", () => {
	const only = (filter: TreeFilter, query = "") => layout(input(BRANCHED, "l1", { filter, query }));
	assert.deepEqual(only("user"), ["u1", "  u2", "u3 *"]);
	assert.deepEqual(only("no-tools"), ["u1", "a1", "a2", "  u2", "  a3", "u3", "a4 *"]);
	assert.deepEqual(only("labelled"), ["u3 *"]);
	assert.equal(treeRows(input(BRANCHED, "l1", { filter: "labelled" })).shown, 1);
	// A search shows matches only (tool results no longer folded), every word required.
	assert.deepEqual(only("all", "BASH"), ["a1", "t1 *"]);
	assert.deepEqual(only("all", "retry u3"), ["u3 *"]);
	assert.deepEqual(only("all", "retry nothing"), []);
});

test("the active entry's row: the leaf, else its nearest shown ancestor", () => {
	assert.equal(treeRows(input(BRANCHED, "l1")).currentIndex, 6, "a label entry stands for its parent");
	const folded = treeRows(input(BRANCHED.slice(0, 3), "t1"));
	assert.equal(folded.rows[folded.currentIndex]!.node.id, "a1", "a folded tool result: its turn");
	assert.equal(treeRows(input(BRANCHED, "l1", { query: "u1" })).currentIndex, 0);
	assert.equal(treeRows(input(BRANCHED, "l1", { filter: "labelled" })).currentIndex, 0);
	assert.equal(treeRows(input([], null)).currentIndex, -1);
});

test("a long conversation with side branches keeps its depth small", () => {
	const specs: Spec[] = [];
	let parent: string | null = null;
	for (let i = 0; i < 500; i++) {
		const before = parent;
		specs.push({ id: `u${i}`, parentId: parent, kind: "user" }, { id: `a${i}`, parentId: `u${i}`, kind: "assistant" });
		parent = `a${i}`;
		if (i % 50 === 49) specs.push({ id: `s${i}`, parentId: before, kind: "user" });
	}
	const { rows, currentIndex } = treeRows(input(specs, parent));
	assert.equal(rows.length, 1010);
	assert.equal(Math.max(...rows.map((r) => r.depth)), 1, "each side branch one level deep, the line at 0");
	assert.equal(rows[currentIndex]!.node.id, "a499");
});
