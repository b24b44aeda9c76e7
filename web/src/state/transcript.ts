/**
 * One session's transcript as the page shows it: committed messages from the backend snapshot, the
 * assistant message being streamed (built from deltas), live tool output, and the steering and follow-up
 * messages waiting for the run. Events are applied in seq order exactly once; while a snapshot reload is
 * pending, events are held and replayed after it.
 */
import type { AssistantMessage, AssistantStreamEvent, Message, SkiffEvent, ToolCallBlock } from "../../../src/client/index.js";

/** A tool call as it streams: its arguments' JSON text so far, until the call is complete. */
export type LiveToolCall = ToolCallBlock & { argsText?: string };

/** A running or finished tool call's output as the page shows it. */
export interface LiveToolOutput {
	/** The tool's name, e.g. "bash". */
	name: string;
	text: string;
	isError: boolean;
	done: boolean;
}

/** Messages queued for the active run, as the last `queue_update` listed them. */
export interface QueuedMessages {
	steering: readonly string[];
	followUp: readonly string[];
}

const NOTHING_QUEUED: QueuedMessages = { steering: [], followUp: [] };

export class Transcript {
	messages: Message[] = [];
	streaming: AssistantMessage | undefined;
	readonly toolOutputs = new Map<string, LiveToolOutput>();
	running = false;
	queued: QueuedMessages = NOTHING_QUEUED;
	/** Texts queued during this run that it has not taken yet (they arrive as user messages when it does, maybe in the next run). */
	private untaken: string[] = [];
	/** Texts the last run ended without taking: the service dropped them, and the page gives them back. */
	private dropped: string[] = [];
	/** Why a run was stopped (`run_stopped`), by the aborted reply it ended with: "Stopped." alone would not say. */
	private readonly stops = new WeakMap<Message, string>();
	lastSeq = 0;
	/** Bumped when this page sends to the session: the view then jumps to the newest message and follows. */
	followRequests = 0;
	/** Bumped on every change, so views can skip work when nothing changed. */
	version = 0;
	/**
	 * How many older messages of the session come before `messages[0]`: a snapshot of the newest messages only
	 * (`get_messages` with `last`) leaves them to `prependOlder`.
	 */
	offset = 0;
	/** Snapshots loaded so far: older messages fit only the snapshot they were asked for. */
	private loads = 0;
	private held: SkiffEvent[] | undefined;

	constructor(readonly sessionId: string) {}

	/** Whether only the newest messages are here yet (the older ones are on their way). */
	get partial(): boolean {
		return this.offset > 0;
	}

	/** Which snapshot is loaded, for `prependOlder`. */
	get loaded(): number {
		return this.loads;
	}

	/**
	 * Replaces everything with a backend snapshot taken at `seq`; held events after it are then applied. `total`
	 * counts the session's messages when the snapshot holds only the newest of them.
	 */
	load(snapshot: { messages: Message[]; streaming?: Message; seq: number; running: boolean; total?: number }): void {
		this.loads++;
		this.offset = Math.max(0, (snapshot.total ?? snapshot.messages.length) - snapshot.messages.length);
		this.messages = snapshot.messages;
		this.streaming = snapshot.streaming?.role === "assistant" ? cloneMessage(snapshot.streaming) : undefined;
		this.toolOutputs.clear();
		this.running = snapshot.running;
		this.queued = NOTHING_QUEUED;
		this.untaken = [];
		this.lastSeq = snapshot.seq;
		const held = this.held ?? [];
		this.held = undefined;
		for (const event of held) this.apply(event);
		this.version++;
	}

	/**
	 * Puts the messages older than a partial snapshot's before it, if that snapshot (`loaded`) is still the one
	 * shown: since it was taken, the transcript only grew by events (a change other than appending reloads it).
	 */
	prependOlder(loaded: number, older: Message[]): boolean {
		if (loaded !== this.loads || older.length !== this.offset) return false;
		this.messages = older.concat(this.messages);
		this.offset = 0;
		this.version++;
		return true;
	}

	/** From now until `load`, events are held (a snapshot is on its way). */
	holdEvents(): void {
		this.held ??= [];
	}

	/** Applies one event; returns false for a repeat or an out-of-date event (ignored). */
	apply(event: SkiffEvent): boolean {
		if (this.held) {
			this.held.push(event);
			return false;
		}
		if (event.seq <= this.lastSeq) return false;
		this.lastSeq = event.seq;
		this.version++;
		switch (event.type) {
			case "agent_start":
				this.running = true;
				break;
			case "agent_end":
				this.running = false;
				this.streaming = undefined;
				// What the queue still lists came too late for this run and starts the next one. A run that failed
				// drops its queue, saying so (queue_update) before agent_end: what left it untaken goes back.
				if (this.queued.steering.length + this.queued.followUp.length === 0) {
					this.dropped.push(...this.untaken);
					this.untaken = [];
				}
				break;
			case "run_stopped": {
				// Sent once the run's last reply (recorded as aborted) has ended, right before agent_end.
				for (let i = this.messages.length - 1; i >= 0; i--) {
					const reply = this.messages[i]!;
					if (reply.role !== "assistant") continue;
					if (reply.stopReason === "aborted") this.stops.set(reply, event.message);
					break;
				}
				break;
			}
			case "queue_update": {
				const before = [...this.queued.steering, ...this.queued.followUp];
				for (const text of [...event.steering, ...event.followUp]) {
					const seen = before.indexOf(text);
					if (seen >= 0) before.splice(seen, 1);
					else this.untaken.push(text);
				}
				this.queued = { steering: [...event.steering], followUp: [...event.followUp] };
				break;
			}
			case "message_start":
				if (event.message.role === "assistant") this.streaming = cloneMessage(event.message);
				else if (event.message.role === "user") {
					const taken = this.untaken.indexOf(contentText(event.message.content));
					if (taken >= 0) this.untaken.splice(taken, 1);
				}
				break;
			case "message_update":
				this.applyDelta(event.assistantMessageEvent);
				break;
			case "message_end":
				if (event.message.role === "assistant") this.streaming = undefined;
				this.messages = [...this.messages, event.message];
				break;
			case "tool_execution_start":
				this.toolOutputs.set(event.toolCallId, { name: event.toolName, text: "", isError: false, done: false });
				break;
			case "tool_execution_update": {
				const current = this.toolOutputs.get(event.toolCallId) ?? { name: "", text: "", isError: false, done: false };
				const text = event.outputDelta !== undefined ? current.text + event.outputDelta : contentText(event.partialResult?.content);
				this.toolOutputs.set(event.toolCallId, { ...current, text });
				break;
			}
			case "tool_execution_end":
				this.toolOutputs.set(event.toolCallId, {
					name: this.toolOutputs.get(event.toolCallId)?.name ?? "",
					text: contentText(event.result.content),
					isError: event.isError,
					done: true,
				});
				break;
			default:
				this.version--; // nothing shown changed
		}
		return true;
	}

	/** Why the run that ended with this (aborted) reply was stopped, when the service said so while the page looked. */
	stopReason(message: Message): string | undefined {
		return this.stops.get(message);
	}

	/** A queued message this page withdrew (queue_cancel) and gave back itself: not given back again at the run's end. */
	withdraw(text: string): void {
		const at = this.untaken.indexOf(text);
		if (at >= 0) this.untaken.splice(at, 1);
	}

	/** The texts the last run ended without taking, once (the page returns them to the composer). */
	takeDropped(): string[] {
		return this.dropped.splice(0);
	}

	/**
	 * What the transcript should say is going on while a run is in flight and nothing streams: "Running bash…"
	 * while a tool runs, "Working…" while waiting for the model; undefined when idle or while a reply streams.
	 */
	activity(): string | undefined {
		if (!this.running) return undefined;
		const tools = [...this.toolOutputs.values()].filter((t) => !t.done);
		if (tools.length === 1) return `Running ${tools[0]!.name || "a tool"}…`;
		if (tools.length > 1) return `Running ${tools.length} tools…`;
		const shown = this.streaming?.content.some((b) => (b.type === "text" ? b.text.trim() : b.type === "thinking" ? b.thinking.trim() : b.type === "toolCall"));
		return shown ? undefined : "Working…";
	}

	private applyDelta(delta: AssistantStreamEvent): void {
		const blocks = (this.streaming ??= emptyAssistant()).content as Array<AssistantMessage["content"][number] | LiveToolCall>;
		const index = delta.contentIndex ?? 0; // deltas of block 0 leave it out
		switch (delta.type) {
			case "text_start":
				blocks[index] = { type: "text", text: "" };
				break;
			case "thinking_start":
				blocks[index] = { type: "thinking", thinking: "" };
				break;
			case "toolcall_start":
				blocks[index] = { type: "toolCall", id: delta.id, name: delta.name, arguments: {}, argsText: "" };
				break;
			case "text_delta": {
				const block = blocks[index];
				if (block?.type === "text") block.text += delta.delta;
				else blocks[index] = { type: "text", text: delta.delta };
				break;
			}
			case "thinking_delta": {
				const block = blocks[index];
				if (block?.type === "thinking") block.thinking += delta.delta;
				else blocks[index] = { type: "thinking", thinking: delta.delta };
				break;
			}
			case "toolcall_delta": {
				const block = blocks[index] as LiveToolCall | undefined;
				if (block?.type === "toolCall") block.argsText = (block.argsText ?? "") + delta.delta;
				break;
			}
			case "text_end":
			case "thinking_end": {
				// A guest's end event carries what the relay held back while the block streamed (docs/collab.md).
				const block = blocks[index];
				if (delta.delta === undefined) break;
				if (block?.type === "text") block.text += delta.delta;
				else if (block?.type === "thinking") block.thinking += delta.delta;
				break;
			}
			case "toolcall_end":
				blocks[index] = delta.toolCall;
				break;
		}
	}
}

/** The text of a tool result's content blocks. */
export function contentText(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content.map((c) => (c && typeof c === "object" && "text" in c ? String((c as { text: unknown }).text) : "")).join("");
}

function cloneMessage(message: AssistantMessage): AssistantMessage {
	return { ...message, content: message.content.map((b) => ({ ...b })) };
}

/** The streaming message when deltas come without its start (it always comes first; this only keeps them). */
function emptyAssistant(): AssistantMessage {
	const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { total: 0 } };
	return { role: "assistant", content: [], provider: "", model: "", usage, stopReason: "stop", timestamp: 0 };
}

/**
 * An MCP tool's server and own name: from its result's details (exact), else from `mcp__<server>__<tool>`
 * while it runs (a server name holding `__` then splits at its first).
 */
export function mcpToolOf(name: string, details: unknown): [string, string] | undefined {
	const d = details as { mcpServer?: unknown; mcpTool?: unknown } | undefined;
	if (typeof d?.mcpServer === "string" && typeof d.mcpTool === "string") return [d.mcpServer, d.mcpTool];
	const parts = /^mcp__(.+?)__(.+)$/.exec(name);
	return parts ? [parts[1]!, parts[2]!] : undefined;
}
