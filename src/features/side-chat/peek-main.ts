/**
 * `peek_main`: the side agent's window on the main conversation as it moves on after the fork, as plain
 * text the model reads. Bounded (a number of messages, each cut, the whole within the feature tools' byte
 * bound, newest kept) and redacted: what the main agent read may hold secrets the side chat has no need for.
 * The reply still streaming shows only what is safe so far (src/shared/redact-stream.ts): its unfinished end
 * may be the first half of a key.
 */
import { Type } from "typebox";
import type { AgentHandle, JsonObject } from "../../agent/types.js";
import { redactKept } from "../../shared/redact-kept.js";
import { redactedSoFar } from "../../shared/redact-stream.js";
import { defineFeatureTool, type FeatureTool, MAX_TOOL_OUTPUT_BYTES } from "../../agent/feature-tool.js";

/** Messages peek_main shows unless asked for another number, and at most. */
export const PEEK_MAIN_DEFAULT_MESSAGES = 20;
export const PEEK_MAIN_MAX_MESSAGES = 50;
/** Each message is cut to this many characters. */
export const PEEK_MESSAGE_MAX_CHARS = 4000;

/** Where a side chat was forked from the main conversation. */
export interface ForkPoint {
	/** The conversation's last message at the fork (the same object for as long as the session holds it). */
	last: JsonObject | undefined;
	/** Its timestamp (epoch ms): later messages are found by time once the conversation was rewritten. */
	lastTimestamp: number;
}

/** The fork point of a conversation whose messages are `messages` now. */
export function forkPointOf(messages: readonly JsonObject[]): ForkPoint {
	const last = messages.at(-1);
	return { last, lastTimestamp: timestampOf(last) ?? Number.NEGATIVE_INFINITY };
}

/**
 * The main conversation's messages after the fork. While the fork's last message is still in the conversation
 * they are the ones after it; once the conversation was rewritten (compacted, moved to another branch, loaded
 * again from its file) they are those recorded later than it (`byTime`).
 */
export function messagesSinceFork(current: readonly JsonObject[], fork: ForkPoint): { messages: JsonObject[]; byTime: boolean } {
	if (fork.last === undefined) return { messages: [...current], byTime: false };
	const index = current.lastIndexOf(fork.last);
	if (index >= 0) return { messages: current.slice(index + 1), byTime: false };
	return { messages: current.filter((m) => (timestampOf(m) ?? Number.NEGATIVE_INFINITY) > fork.lastTimestamp), byTime: true };
}

/** What peek_main reads of the main session (its handle may be replaced when the session is reloaded). */
export type MainView = Pick<AgentHandle, "messages" | "streamingMessage" | "isBusy">;

const PeekParams = Type.Object(
	{
		last: Type.Optional(
			Type.Integer({
				minimum: 1,
				maximum: PEEK_MAIN_MAX_MESSAGES,
				description: `How many of the newest messages to show (default ${PEEK_MAIN_DEFAULT_MESSAGES}).`,
			}),
		),
	},
	{ additionalProperties: false },
);

/** The peek_main tool of one side chat: `main` gives the main session's current handle. */
export function createPeekMainTool(main: () => MainView, fork: ForkPoint): FeatureTool<typeof PeekParams> {
	return defineFeatureTool({
		name: "peek_main",
		label: "Peek at the main conversation",
		description:
			"Shows what happened in the main conversation since this side chat was forked from it: the user's messages, " +
			"the main agent's replies and tool results (newest last, long ones cut, secrets redacted), and whether the " +
			"main agent is working right now.",
		parameters: PeekParams,
		execute: async ({ last }) => renderPeek(main(), fork, last ?? PEEK_MAIN_DEFAULT_MESSAGES),
	});
}

/** The text peek_main answers. */
export function renderPeek(main: MainView, fork: ForkPoint, wanted: number): string {
	const { messages, byTime } = messagesSinceFork(main.messages(), fork);
	const blocks = messages.map((m) => renderMessage(m)).filter((b): b is string => b !== undefined);
	const streaming = main.streamingMessage();
	const live = streaming ? renderMessage(streaming, "assistant, still streaming", { streaming: true }) : undefined;
	const notes: string[] = [];
	if (byTime) notes.push("The main conversation was compacted, reloaded or moved to another branch since the fork: new messages are those recorded after it.");
	if (main.isBusy) notes.push("The main agent is working right now.");
	// Newest first into the byte budget (kept for the header), then back in order.
	const budget = MAX_TOOL_OUTPUT_BYTES - 1024;
	const shown: string[] = [];
	let bytes = live ? Buffer.byteLength(live) : 0;
	for (const block of blocks.slice(-Math.max(1, wanted)).reverse()) {
		const size = Buffer.byteLength(block) + 2;
		if (bytes + size > budget) break;
		shown.unshift(block);
		bytes += size;
	}
	const header =
		blocks.length === 0
			? "Nothing new in the main conversation since the fork."
			: `${blocks.length} new message${blocks.length === 1 ? "" : "s"} in the main conversation since the fork` +
				(shown.length < blocks.length ? `; the last ${shown.length} shown (ask for more with \`last\`, up to ${PEEK_MAIN_MAX_MESSAGES}).` : ".");
	return [header, ...notes, ...shown, ...(live ? [live] : [])].join("\n\n");
}

/**
 * One message as text, redacted and cut, or undefined for hidden context. Only what is kept is redacted
 * (redact-kept.ts); a message still streaming that fits shows only what is safe so far: its unfinished end
 * could still become a secret.
 */
function renderMessage(message: JsonObject, heading?: string, how: { streaming?: boolean } = {}): string | undefined {
	const body = messageBody(message);
	if (body === undefined) return undefined;
	const fits = body.text.length <= PEEK_MESSAGE_MAX_CHARS;
	const { text, cut } = how.streaming && fits ? { text: redactedSoFar(body.text), cut: false } : redactKept(body.text, PEEK_MESSAGE_MAX_CHARS);
	return `[${heading ?? body.heading}]\n${cut ? `${text}… [cut]` : text}`;
}

function messageBody(m: JsonObject): { heading: string; text: string } | undefined {
	switch (m.role) {
		case "user":
			return { heading: "user", text: textOf(m.content) };
		case "assistant": {
			const parts: string[] = [];
			for (const block of Array.isArray(m.content) ? (m.content as JsonObject[]) : []) {
				if (block.type === "text") parts.push(String(block.text ?? ""));
				else if (block.type === "toolCall") parts.push(`(calls ${String(block.name)} ${JSON.stringify(block.arguments ?? {})})`);
			}
			if (m.stopReason === "aborted") parts.push("(stopped by the user)");
			else if (m.stopReason === "error") parts.push(`(failed: ${String(m.errorMessage ?? "unknown error")})`);
			return { heading: "assistant", text: parts.join("\n") };
		}
		case "toolResult":
			return { heading: `tool result: ${String(m.toolName)}${m.isError ? ", failed" : ""}`, text: textOf(m.content) };
		case "bashExecution":
			return { heading: "the user's shell command", text: `$ ${String(m.command)}\n${String(m.output ?? "")}` };
		case "custom":
			return m.display === false ? undefined : { heading: String(m.customType), text: textOf(m.content) };
		case "compactionSummary":
			return { heading: "summary of the earlier conversation", text: String(m.summary ?? "") };
		case "branchSummary":
			return { heading: "summary of a branch left", text: String(m.summary ?? "") };
		default:
			return { heading: String(m.role), text: "" };
	}
}

function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return (content as JsonObject[]).map((b) => (b.type === "text" ? String(b.text ?? "") : b.type === "image" ? "[image]" : "")).join("\n");
}

function timestampOf(message: JsonObject | undefined): number | undefined {
	const value = message?.timestamp;
	return typeof value === "number" ? value : undefined;
}
