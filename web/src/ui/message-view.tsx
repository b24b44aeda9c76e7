/** One transcript entry: a user message, an assistant reply with its thinking and tool cards, or a note. */
import { Component } from "preact";
import { Markdown } from "../render/markdown";
import { redact } from "../render/redact";
import type { Message } from "../../../src/client/index.js";
import type { MessagePlace } from "../state/message-places";
import { splitMentions } from "../state/mentions";
import { contentText, type LiveToolOutput } from "../state/transcript";
import { DELEGATION_TOOL, DelegationCard, JOB_CARD, JobResultCard } from "./delegation-card";
import { HiddenMark } from "./hidden-marks";
import { AnswerBar, type MessageActions, UserMessage } from "./message-actions";
import { Output, ToolCard, useShown } from "./tool-card";
import { UserBubble } from "./user-bubble";

/** Thinking as it streams: only what is safe so far. */
function ThinkingText({ text, streaming }: { text: string; streaming: boolean }) {
	return <div class="thinking-text">{useShown(text, streaming)}</div>;
}

export interface MessageProps {
	message: Message;
	results: Map<string, Extract<Message, { role: "toolResult" }>>;
	live: Map<string, LiveToolOutput>;
	streaming?: boolean;
	/** Fork before this user message (its index among user messages). */
	onFork?: () => void;
	/** Changes whenever the message's tool results may have changed. */
	version: number;
	/** Why the run was stopped, for an aborted reply the service stopped (a turn limit, the goal). */
	stopReason?: string;
	/** Where the message is in the session tree (once known), for its actions and branch switcher. */
	place?: MessagePlace;
	/** Edit and resend, regenerate, switch branches; without them (a guest) only Copy. */
	actions?: MessageActions;
	/** The answer's model, tokens and cost, on the reply that ends a turn. */
	usage?: string;
	/** The entry of each tool result of the branch shown, by its call's id (once the tree is read): get_image's address. */
	resultIds?: ReadonlyMap<string, string>;
}

/** Re-renders only when its message (or its tool results) changed: long transcripts stay cheap. */
export class MessageView extends Component<MessageProps> {
	override shouldComponentUpdate(next: MessageProps): boolean {
		return (
			next.message !== this.props.message ||
			next.streaming === true ||
			next.stopReason !== this.props.stopReason ||
			next.place?.key !== this.props.place?.key ||
			next.usage !== this.props.usage ||
			(this.hasTools() && (next.version !== this.props.version || next.resultIds !== this.props.resultIds))
		);
	}

	private hasTools(): boolean {
		const content = this.props.message.content;
		return Array.isArray(content) && content.some((b) => b.type === "toolCall");
	}

	override render() {
		const { message, results, live, streaming, onFork, stopReason, place, actions, usage, resultIds } = this.props;
		if (message.display === false) return <HiddenMark message={message} />; // nothing, or a mark (the goal's turn, a restart)
		switch (message.role) {
			case "user": {
				// Copied and edited as typed: a mentioned file as its @path, not its content.
				const text = splitMentions(typeof message.content === "string" ? message.content : contentText(message.content)).text;
				return <UserMessage text={text} bubble={<UserBubble content={message.content} load={place && actions && ((n) => actions.image(place.id, n))} />} timestamp={message.timestamp} place={place} actions={actions} onFork={onFork} />;
			}
			case "assistant": {
				const blocks = Array.isArray(message.content) ? message.content : [];
				return (
					<div class={`msg assistant${streaming ? " streaming" : ""}`}>
						{blocks.map((block, n) => {
							if (!block) return null;
							if (block.type === "text") return <Markdown key={n} text={block.text} streaming={streaming} />;
							if (block.type === "thinking")
								return (
									<details key={n} class="thinking" open={streaming}>
										<summary>Thinking</summary>
										<ThinkingText text={block.thinking} streaming={streaming === true} />
									</details>
								);
							if (block.type === "toolCall" && block.name === DELEGATION_TOOL) return <DelegationCard key={n} block={block} result={results.get(block.id)} live={live.get(block.id)} />;
							if (block.type === "toolCall") {
								const id = resultIds?.get(block.id);
								return <ToolCard key={n} block={block} result={results.get(block.id)} live={live.get(block.id)} load={id && actions ? (i) => actions.image(id, i) : undefined} />;
							}
							return null;
						})}
						{message.stopReason === "aborted" && <div class="note">{stopReason ? `Stopped: ${stopReason}.` : "Stopped."}</div>}
						{message.stopReason === "error" && <div class="note error">Run failed: {redact(message.errorMessage ?? "unknown error")}</div>}
						{!streaming && message.stopReason !== "toolUse" && (
							<AnswerBar message={message} text={blocks.map((b) => (b?.type === "text" ? b.text : "")).filter(Boolean).join("\n\n")} usage={usage} place={place} actions={actions} />
						)}
					</div>
				);
			}
			case "bashExecution":
				return (
					<div class="msg tool bash">
						<div class="tool-head">
							<span class="tool-name">$</span>
							<code class="tool-args">{redact(String(message.command ?? ""))}</code>
						</div>
						<Output text={String(message.output ?? "")} bash />
					</div>
				);
			case "custom":
				if (message.customType === JOB_CARD) return <JobResultCard message={message} />;
				return message.display ? (
					<div class="msg note">
						<Markdown text={typeof message.content === "string" ? message.content : contentText(message.content)} />
					</div>
				) : null;
			case "compactionSummary":
			case "branchSummary":
				return <div class="msg note">Earlier conversation summarized.</div>;
			default:
				return null; // toolResult messages render inside their tool card
		}
	}
}
