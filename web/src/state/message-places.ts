/**
 * Where each transcript message sits in the session tree, for the message actions: its entry (edit and resend,
 * the branch switcher), the prompt an answer answers (regenerate) and its siblings (the switcher). Messages carry
 * no entry ids; the transcript is the path from the root to the leaf, so its prompts and answers are paired, from
 * the newest, with the path's user and assistant entries. A compaction leaves the oldest entries without
 * messages; a transcript not yet reloaded after a move stops the pairing at the first entry of another kind, or
 * has more messages than the path (then nothing is paired).
 */
import type { Message, TreeNode } from "../../../src/client/index.js";

/** A session's tree as tree-state.ts keeps it: every node by id, the ids in the order recorded, the leaf. */
export interface RecordedTree {
	nodes: ReadonlyMap<string, TreeNode>;
	order: readonly string[];
	leafId: string | null;
}

export interface MessagePlace {
	id: string;
	/** The prompt this message is or answers: what regenerate sends again. */
	promptId: string | undefined;
	/** Entries of the same kind under the same parent, in the order recorded (this one among them). */
	siblings: string[];
	/** Differs whenever what the actions show differs: a message view compares it to skip renders. */
	key: string;
}

const paired = (node: TreeNode) => node.kind === "user" || node.kind === "assistant";

/**
 * The places of the newest `newest` messages (all by default), and of the prompt the oldest of them answers: the
 * view places the messages it renders, not a 10,000-message session's every message (10 to 20 ms in one frame).
 */
export function messagePlaces(tree: RecordedTree, messages: readonly Message[], newest = messages.length): Map<Message, MessagePlace> {
	const places = new Map<Message, MessagePlace>();
	const path: TreeNode[] = [];
	for (let node = tree.leafId ? tree.nodes.get(tree.leafId) : undefined; node; node = node.parentId ? tree.nodes.get(node.parentId) : undefined) {
		if (paired(node)) path.push(node);
	}
	const shown: Message[] = [];
	let oldest = 0;
	for (let i = 0; i < messages.length; i++) {
		if (i === messages.length - newest) oldest = shown.length;
		const role = messages[i]!.role;
		if (role === "user" || role === "assistant") shown.push(messages[i]!);
	}
	if (shown.length > path.length) return places;
	while (oldest > 0 && shown[oldest]?.role !== "user") oldest--;
	path.length = shown.length;
	path.reverse();
	const parents = new Set(path.slice(oldest).map((n) => n.parentId));
	const children = new Map<string | null, TreeNode[]>();
	for (const id of tree.order) {
		const node = tree.nodes.get(id)!;
		if (!parents.has(node.parentId) || !paired(node)) continue;
		const known = children.get(node.parentId);
		if (known) known.push(node);
		else children.set(node.parentId, [node]);
	}
	let promptId: string | undefined;
	const found: Array<[Message, MessagePlace]> = [];
	for (let i = shown.length - 1; i >= oldest && path[i]!.kind === shown[i]!.role; i--) {
		const node = path[i]!;
		const siblings = children.get(node.parentId)!.filter((n) => n.kind === node.kind).map((n) => n.id);
		found.push([shown[i]!, { id: node.id, promptId: undefined, siblings, key: `${node.id} ${siblings.length} ${siblings.indexOf(node.id)}` }]);
	}
	// Oldest first, so each answer finds the prompt before it.
	for (const [message, place] of found.reverse()) {
		if (message.role === "user") promptId = place.id;
		place.promptId = promptId;
		place.key += ` ${promptId}`;
		places.set(message, place);
	}
	return places;
}

/** The newest entry of the branch that starts at `entryId` (itself when nothing follows it): where showing it goes. */
export function branchTip(tree: RecordedTree, entryId: string): string {
	const branch = new Set([entryId]);
	let tip = entryId;
	for (const id of tree.order) {
		const parent = tree.nodes.get(id)!.parentId;
		if (parent !== null && branch.has(parent)) {
			branch.add(id);
			tip = id;
		}
	}
	return tip;
}

/** The entry of each tool result on the branch shown, by the id of the call it answers: where get_image finds its images. */
export function toolResultIds(tree: RecordedTree): Map<string, string> {
	const ids = new Map<string, string>();
	for (let node = tree.leafId ? tree.nodes.get(tree.leafId) : undefined; node; node = node.parentId ? tree.nodes.get(node.parentId) : undefined) {
		if (node.kind === "toolResult" && node.toolCallId && !ids.has(node.toolCallId)) ids.set(node.toolCallId, node.id);
	}
	return ids;
}
