/**
 * A pi session's entries as the runtime's tree nodes: kind, place, a short redacted preview, and the links a
 * panel needs to fold a turn's tool results under it. Entries never change once recorded, so each node is
 * built once and kept (per entry object); only labels, which change, are read on every build.
 */
import { redactSecrets } from "../../shared/redact.js";
import { redactionWindow } from "../../shared/redact-kept.js";
import { redactedSoFar } from "../../shared/redact-stream.js";
import type { SessionEntry, SessionManager } from "@mariozechner/pi-coding-agent";
import type { SessionTree, TreeNode } from "../types.js";

/** Longest preview, in characters (a row of a tree panel). */
export const TREE_PREVIEW_CHARS = 160;
/**
 * How much of an entry's text is looked at for its preview. Redaction runs on this much before the preview is
 * cut, so a secret that starts within the preview is masked whole; anything past it is cut off anyway.
 */
const PREVIEW_SCAN_CHARS = 600;
/** How far up a tool result is traced to the assistant turn that called it (a turn's parallel calls). */
const MAX_TURN_WALK = 256;

type Block = { type?: unknown; text?: unknown; thinking?: unknown; id?: unknown; name?: unknown; arguments?: unknown };

/** Builds tree nodes of one session, remembering each entry's node. */
export class SessionTreeView {
	private readonly built = new WeakMap<object, TreeNode>();

	constructor(private readonly manager: SessionManager) {}

	/** Every entry, in the order recorded, and the leaf. */
	tree(): SessionTree {
		const nodes = this.manager.getEntries().map((entry) => this.node(entry));
		return { nodes, leafId: this.manager.getLeafId() };
	}

	/** One entry's node, with its current label. */
	node(entry: SessionEntry): TreeNode {
		let base = this.built.get(entry);
		if (!base) {
			base = this.build(entry);
			this.built.set(entry, base);
		}
		const label = this.manager.getLabel(entry.id);
		return label === undefined ? base : { ...base, label };
	}

	private build(entry: SessionEntry): TreeNode {
		const node: TreeNode = { id: entry.id, parentId: entry.parentId, kind: "other", preview: "", timestamp: entry.timestamp };
		switch (entry.type) {
			case "message":
				describeMessage(node, entry.message as unknown as Record<string, unknown>);
				if (node.kind === "toolResult") {
					const turnId = this.turnOf(entry, node.toolCallId);
					if (turnId) node.turnId = turnId;
				}
				break;
			case "custom_message":
				node.kind = "custom_message";
				node.preview = preview(textOf(entry.content));
				if (!entry.display) node.hidden = true;
				break;
			case "custom":
				node.kind = "custom";
				node.preview = preview(entry.customType);
				break;
			case "compaction":
				node.kind = "compaction";
				node.preview = preview(`Compacted ${entry.tokensBefore} tokens: ${entry.summary}`);
				break;
			case "branch_summary":
				node.kind = "branch_summary";
				node.preview = preview(entry.summary);
				break;
			case "model_change":
				node.kind = "model_change";
				node.preview = preview(`${entry.provider}/${entry.modelId}`);
				break;
			case "thinking_level_change":
				node.kind = "thinking_level_change";
				node.preview = preview(entry.thinkingLevel);
				break;
			case "label":
				node.kind = "label";
				node.targetId = entry.targetId;
				node.preview = entry.label ? preview(entry.label) : "(label cleared)";
				break;
			case "session_info":
				node.kind = "session_info";
				node.preview = preview(entry.name ?? "");
				break;
			default:
				node.preview = preview(String((entry as { type?: unknown }).type ?? ""));
		}
		return node;
	}

	/** The assistant entry whose tool call `toolCallId` a tool result answers: up past its sibling results. */
	private turnOf(entry: SessionEntry, toolCallId: string | undefined): string | undefined {
		let current = entry.parentId ? this.manager.getEntry(entry.parentId) : undefined;
		for (let steps = 0; current && steps < MAX_TURN_WALK; steps++) {
			if (current.type === "message") {
				const message = current.message as { role?: unknown; content?: unknown };
				if (message.role === "assistant") {
					const calls = Array.isArray(message.content) ? (message.content as Block[]) : [];
					return calls.some((b) => b.type === "toolCall" && b.id === toolCallId) ? current.id : undefined;
				}
				if (message.role !== "toolResult") return undefined;
			} else if (current.type !== "label") {
				return undefined;
			}
			current = current.parentId ? this.manager.getEntry(current.parentId) : undefined;
		}
		return undefined;
	}
}

/** Fills kind and preview (and the tool fields) from a message entry's message. */
function describeMessage(node: TreeNode, message: Record<string, unknown>): void {
	switch (message.role) {
		case "user":
			node.kind = "user";
			node.preview = preview(textOf(message.content));
			return;
		case "assistant": {
			node.kind = "assistant";
			const blocks = Array.isArray(message.content) ? (message.content as Block[]) : [];
			const calls = blocks.filter((b) => b.type === "toolCall").map((b) => ({ id: String(b.id ?? ""), name: String(b.name ?? "") }));
			if (calls.length > 0) node.toolCalls = calls;
			if (message.stopReason === "aborted" || message.stopReason === "error") node.stopReason = message.stopReason;
			const text = textOf(blocks);
			const thinking = blocks.filter((b) => b.type === "thinking" && typeof b.thinking === "string").map((b) => b.thinking).join(" ");
			const fallback = calls.length > 0 ? `→ ${calls.map((c) => c.name).join(", ")}` : thinking || String(message.errorMessage ?? "");
			node.preview = preview(text.trim() ? text : fallback);
			return;
		}
		case "toolResult":
			node.kind = "toolResult";
			node.toolCallId = String(message.toolCallId ?? "");
			node.toolName = String(message.toolName ?? "");
			node.isError = message.isError === true;
			node.preview = preview(textOf(message.content));
			return;
		case "bashExecution":
			node.kind = "bashExecution";
			node.preview = preview(`$ ${String(message.command ?? "")}`);
			return;
		case "custom":
			node.kind = "custom_message";
			node.preview = preview(textOf(message.content));
			if (message.display === false) node.hidden = true;
			return;
		default:
			node.preview = preview(String(message.role ?? ""));
	}
}

/** The text blocks of a content value (a string, or an array of blocks), joined; a little over PREVIEW_SCAN_CHARS at most. */
function textOf(content: unknown): string {
	if (typeof content === "string") return content.slice(0, PREVIEW_SCAN_CHARS + 1);
	if (!Array.isArray(content)) return "";
	let text = "";
	for (const block of content as Block[]) {
		if (block?.type !== "text" || typeof block.text !== "string") continue;
		text += (text ? " " : "") + block.text.slice(0, PREVIEW_SCAN_CHARS + 1);
		if (text.length > PREVIEW_SCAN_CHARS) break;
	}
	return text;
}

/**
 * One line: redacted first, then whitespace collapsed and cut with an ellipsis. Only the first
 * PREVIEW_SCAN_CHARS are looked at, without the word cut there: a secret cut in half would escape its pattern,
 * and redacting a long secret earlier could move the half into view.
 */
export function preview(text: string): string {
	const scanned = redactionWindow(text, PREVIEW_SCAN_CHARS);
	// The window is one word (a reply of 15,000 characters without a space showed as "(empty)"): its start as a
	// stream shows it, up to just before anywhere a secret could open in it (redact-stream.ts).
	const kept = scanned || !text.trim() ? redactSecrets(scanned) : redactedSoFar(text.slice(0, PREVIEW_SCAN_CHARS), { showLongRuns: true });
	const line = kept.replace(/\s+/g, " ").trim();
	if (line.length <= TREE_PREVIEW_CHARS) return line;
	// Cut on a code point boundary: a lone surrogate half is not valid text.
	return `${line.slice(0, TREE_PREVIEW_CHARS).replace(/[\uD800-\uDBFF]$/, "")}…`;
}
