/** One transcript entry: a user message, an assistant reply with its thinking and tool cards, or a note. */
import { Component } from "preact";
import { useRef } from "preact/hooks";
import { Markdown } from "../render/markdown";
import { redact } from "../render/redact";
import { BASH_TAIL_LINES, GrowingText, settled, tail, TOOL_TAIL_LINES } from "../render/text-window";
import type { Message, ToolCallBlock } from "../../../src/client/index.js";
import { contentText, type LiveToolCall, type LiveToolOutput, mcpToolOf } from "../state/transcript";
import { DELEGATION_TOOL, DelegationCard } from "./delegation-card";
import { Icon } from "./icons";

function Output({ text, bash, isError }: { text: string; bash: boolean; isError?: boolean }) {
	const { shown, omitted } = tail(redact(text), bash ? BASH_TAIL_LINES : TOOL_TAIL_LINES);
	return (
		<div class={`output${isError ? " error" : ""}`}>
			{omitted > 0 && <div class="omitted">… {omitted} earlier line{omitted === 1 ? "" : "s"} omitted</div>}
			<pre>{shown}</pre>
		</div>
	);
}

/**
 * What a card says of a call's arguments, redacted: its command or path, else their JSON. While they stream,
 * what is safe so far of their JSON text, its escapes undone: inside JSON a pair's quotes are escaped
 * (`\"password\": \"…\"`), which redaction would not see as a pair.
 */
function argsSummary(block: LiveToolCall): string {
	const args = block.arguments as Record<string, unknown> | undefined;
	if (args && typeof args === "object") {
		if (typeof args.command === "string") return redact(args.command);
		if (typeof args.path === "string") return redact(args.path);
		const json = JSON.stringify(args);
		if (json !== "{}") return redact(json);
	}
	return settled(unescapeJson(block.argsText ?? ""));
}

/** JSON text with its string escapes undone, for reading (an escape cut off at the end stays as it is). */
function unescapeJson(text: string): string {
	return text.replace(/\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt]))/g, (_m, code: string | undefined, char: string | undefined) =>
		code ? String.fromCharCode(parseInt(code, 16)) : (JSON_ESCAPES[char!] ?? char!),
	);
}

const JSON_ESCAPES: Record<string, string> = { b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/** What may show of a text still streaming (settled, at the cost of what was added), else all of it, redacted. */
function useShown(text: string, streaming: boolean): string {
	const growing = useRef<GrowingText | undefined>(undefined);
	return streaming ? (growing.current ??= new GrowingText()).update(text) : redact(text);
}

export function ToolCard(props: { block: ToolCallBlock; result?: Extract<Message, { role: "toolResult" }>; live?: LiveToolOutput }) {
	const { block, result, live } = props;
	const bash = block.name === "bash";
	const running = !result && !live?.done;
	const text = useShown(result ? contentText(result.content) : (live?.text ?? ""), running);
	const isError = result ? result.isError : live?.isError;
	const state = running ? "running" : isError ? "failed" : "done";
	const mcp = mcpToolOf(block.name, result?.details);
	return (
		<div class={`tool ${bash ? "bash" : ""}`} data-state={state}>
			<div class="tool-head">
				{mcp && <span class="tag" title={`MCP server ${mcp[0]}`}>{mcp[0]}</span>}
				<span class="tool-name">{mcp ? mcp[1] : block.name || "tool"}</span>
				<code class="tool-args">{argsSummary(block)}</code>
				<span class={`tool-state ${state}`}>{state}</span>
			</div>
			{(text || state !== "running") && <Output text={text} bash={bash} isError={isError} />}
		</div>
	);
}

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
}

/** Re-renders only when its message (or its tool results) changed: long transcripts stay cheap. */
export class MessageView extends Component<MessageProps> {
	override shouldComponentUpdate(next: MessageProps): boolean {
		return (
			next.message !== this.props.message ||
			next.streaming === true ||
			next.stopReason !== this.props.stopReason ||
			(this.hasTools() && next.version !== this.props.version)
		);
	}

	private hasTools(): boolean {
		const content = this.props.message.content;
		return Array.isArray(content) && content.some((b) => b.type === "toolCall");
	}

	override render() {
		const { message, results, live, streaming, onFork, stopReason } = this.props;
		if (message.display === false) return null;
		switch (message.role) {
			case "user": {
				const text = typeof message.content === "string" ? message.content : contentText(message.content);
				return (
					<div class="msg user">
						<div class="bubble">{redact(text)}</div>
						{onFork && (
							<button type="button" class="link fork" onClick={onFork} title="Start a new session from before this message, with this message to edit">
								<Icon name="fork" />
								Fork
							</button>
						)}
					</div>
				);
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
							if (block.type === "toolCall") return <ToolCard key={n} block={block} result={results.get(block.id)} live={live.get(block.id)} />;
							return null;
						})}
						{message.stopReason === "aborted" && <div class="note">{stopReason ? `Stopped: ${stopReason}.` : "Stopped."}</div>}
						{message.stopReason === "error" && <div class="note error">Run failed: {redact(message.errorMessage ?? "unknown error")}</div>}
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
