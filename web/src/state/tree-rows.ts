/**
 * The session tree as the panel draws it: the nodes of get_tree (and tree_changed) turned into a flat list of
 * rows with a depth, so the panel can render only the rows in view and still be a tree to keyboard and screen
 * reader (aria-level, aria-setsize, aria-posinset).
 *
 * The layout keeps a long conversation readable: a linear run of entries stays at one depth instead of
 * indenting at every entry, and at a branch point the branch that continues (the one on the active path, else
 * the newest) stays on the same line while the other branches hang under the branch point, one level deeper,
 * where they can be folded. Tool results are folded under the assistant turn that called them (`turnId`).
 * Filters and the text search hide entries; what a hidden entry held hangs under its nearest shown ancestor.
 */
import type { TreeNode } from "../../../src/client/index.js";

export type TreeFilter = "all" | "no-tools" | "user" | "labelled";

/** The filters in the order the panel offers them, with their names. */
export const TREE_FILTERS: ReadonlyArray<{ id: TreeFilter; label: string; title: string }> = [
	{ id: "all", label: "All", title: "Every entry (tool results folded under their turn)" },
	{ id: "no-tools", label: "No tools", title: "Without tool results" },
	{ id: "user", label: "User", title: "Only your messages" },
	{ id: "labelled", label: "Labelled", title: "Only labelled entries" },
];

export interface TreeRow {
	node: TreeNode;
	/** Indentation level, from 0. */
	depth: number;
	/** Index of the row this one hangs under (its tree parent); -1 at the top level. */
	parent: number;
	/** Rows hanging under the same parent (aria-setsize) and this row's place among them, from 1 (aria-posinset). */
	setSize: number;
	posInSet: number;
	/** Other branches that start here (hung under this row). */
	sideBranches: number;
	/** Tool results folded under this turn. */
	toolResults: number;
	/** Whether the side branches (else the tool results) are shown; undefined when there is nothing to fold. */
	expanded: boolean | undefined;
	/** The tool results are shown (independent of the branches when a turn has both). */
	toolsOpen: boolean;
	/** The first row of a side branch. */
	branchStart: boolean;
	/** A tool result folded under its turn. */
	folded: boolean;
	/** On the path from the root to the active leaf. */
	onPath: boolean;
	/** The row standing for the active leaf (the leaf, or its nearest shown ancestor). */
	current: boolean;
}

export interface TreeRowsInput {
	/** Every node by id. */
	nodes: ReadonlyMap<string, TreeNode>;
	/** Ids in the order recorded (a parent before its children). */
	order: readonly string[];
	leafId: string | null;
	filter: TreeFilter;
	/** Text search over previews, labels and kinds; blank: none. */
	query: string;
	/** Branch points whose side branches are folded. */
	collapsed: ReadonlySet<string>;
	/** Turns whose tool results are shown. */
	openTurns: ReadonlySet<string>;
}

export interface TreeRows {
	rows: TreeRow[];
	/** Entries the filter and search let through (tool results folded away count too). */
	shown: number;
	/** Index of the row standing for the active leaf; -1 when none is shown. */
	currentIndex: number;
}

/** Whether an entry passes the filter (before the search). Label entries are shown as labels on their targets. */
function passesFilter(node: TreeNode, filter: TreeFilter): boolean {
	if (node.kind === "label") return false;
	switch (filter) {
		case "all":
			return true;
		case "no-tools":
			return node.kind !== "toolResult";
		case "user":
			return node.kind === "user";
		case "labelled":
			return Boolean(node.label);
	}
}

/** What the search looks at: the preview, the label, the kind and the tools. */
export function searchText(node: TreeNode): string {
	const tools = node.toolCalls?.map((c) => c.name).join(" ") ?? "";
	return `${node.preview}\n${node.label ?? ""}\n${KIND_NAMES[node.kind] ?? node.kind}\n${node.toolName ?? ""}\n${tools}`.toLowerCase();
}

/** How each kind of entry is named in a row. */
export const KIND_NAMES: Record<TreeNode["kind"], string> = {
	user: "You",
	assistant: "Agent",
	toolResult: "Tool result",
	bashExecution: "Shell",
	custom_message: "Note",
	custom: "Extension data",
	compaction: "Compaction",
	branch_summary: "Branch summary",
	model_change: "Model",
	thinking_level_change: "Thinking",
	label: "Label",
	session_info: "Session",
	other: "Entry",
};

/** The ids on the path from the root to `leafId`. */
export function activePath(nodes: ReadonlyMap<string, TreeNode>, leafId: string | null): Set<string> {
	const path = new Set<string>();
	for (let id = leafId; id && !path.has(id); id = nodes.get(id)?.parentId ?? null) path.add(id);
	return path;
}

export function treeRows(input: TreeRowsInput): TreeRows {
	const { nodes, order, filter, collapsed, openTurns } = input;
	const words = input.query.toLowerCase().split(/\s+/).filter(Boolean);
	const path = activePath(nodes, input.leafId);
	// Tool results fold under their turn only in the unfiltered, unsearched view.
	const fold = filter === "all" && words.length === 0;

	const passes = new Set<string>();
	const turnTools = new Map<string, string[]>();
	for (const id of order) {
		const node = nodes.get(id);
		if (!node || !passesFilter(node, filter)) continue;
		if (words.length > 0) {
			const text = searchText(node);
			if (!words.every((w) => text.includes(w))) continue;
		}
		passes.add(id);
	}
	const inMain = new Set<string>();
	for (const id of passes) {
		const node = nodes.get(id)!;
		if (fold && node.kind === "toolResult" && node.turnId && passes.has(node.turnId)) {
			const list = turnTools.get(node.turnId);
			if (list) list.push(id);
			else turnTools.set(node.turnId, [id]);
		} else inMain.add(id);
	}

	// Each shown entry hangs under its nearest shown ancestor (memoized, so the walk is linear overall).
	const shownParent = new Map<string, string | null>();
	const parentOf = (id: string): string | null => {
		const walked: string[] = [];
		let at = nodes.get(id)?.parentId ?? null;
		let found: string | null = null;
		while (at !== null) {
			if (inMain.has(at)) {
				found = at;
				break;
			}
			const known = shownParent.get(at);
			if (known !== undefined) {
				found = known;
				break;
			}
			walked.push(at);
			at = nodes.get(at)?.parentId ?? null;
		}
		for (const w of walked) shownParent.set(w, found);
		return found;
	};
	const children = new Map<string | null, string[]>();
	for (const id of inMain) {
		const parent = parentOf(id);
		const list = children.get(parent);
		if (list) list.push(id);
		else children.set(parent, [id]);
	}

	const rows: TreeRow[] = [];
	type Pending = { id: string; depth: number; parent: number; branchStart: boolean; folded: boolean };
	const stack: Pending[] = [];
	const roots = children.get(null) ?? [];
	for (let i = roots.length - 1; i >= 0; i--) stack.push({ id: roots[i]!, depth: 0, parent: -1, branchStart: false, folded: false });
	while (stack.length > 0) {
		const { id, depth, parent, branchStart, folded } = stack.pop()!;
		const node = nodes.get(id)!;
		const index = rows.length;
		const kids = folded ? [] : (children.get(id) ?? []);
		const tools = folded ? [] : (turnTools.get(id) ?? []);
		const main = kids.find((k) => path.has(k)) ?? kids.at(-1);
		const sides = kids.filter((k) => k !== main);
		const sidesOpen = sides.length > 0 && !collapsed.has(id);
		const toolsOpen = tools.length > 0 && openTurns.has(id);
		rows.push({
			node,
			depth,
			parent,
			setSize: 0,
			posInSet: 0,
			sideBranches: sides.length,
			toolResults: tools.length,
			expanded: sides.length > 0 ? sidesOpen : tools.length > 0 ? toolsOpen : undefined,
			toolsOpen,
			branchStart,
			folded,
			onPath: path.has(id),
			current: false,
		});
		// Popped in reverse: the tool results first, then the side branches, then the branch that continues.
		if (main) stack.push({ id: main, depth, parent, branchStart: false, folded: false });
		if (sidesOpen) for (let i = sides.length - 1; i >= 0; i--) stack.push({ id: sides[i]!, depth: depth + 1, parent: index, branchStart: true, folded: false });
		if (toolsOpen) for (let i = tools.length - 1; i >= 0; i--) stack.push({ id: tools[i]!, depth: depth + 1, parent: index, branchStart: false, folded: true });
	}

	const sizes = new Map<number, number>();
	for (const row of rows) {
		const size = (sizes.get(row.parent) ?? 0) + 1;
		sizes.set(row.parent, size);
		row.posInSet = size;
	}
	for (const row of rows) row.setSize = sizes.get(row.parent)!;

	// The active leaf's row: the leaf, or the nearest ancestor that is shown (a folded tool result's turn, ...).
	const indexOf = new Map<string, number>();
	rows.forEach((row, i) => indexOf.set(row.node.id, i));
	let currentIndex = -1;
	for (let id = input.leafId; id; id = nodes.get(id)?.parentId ?? null) {
		const at = indexOf.get(id);
		if (at !== undefined) {
			currentIndex = at;
			rows[at]!.current = true;
			break;
		}
	}
	return { rows, shown: passes.size, currentIndex };
}
