/**
 * A side chat that runs nothing: tests play its runs event by event (as pi would emit them) and see what the
 * side chat manager made of them.
 */
import type { JsonObject, RuntimeEvent, SideChatHandle, SideChatOptions, ThinkingLevel } from "../../src/agent/types.js";
import { CodedError } from "../../src/shared/errors.js";

export class FakeSideChat implements SideChatHandle {
	readonly model = "fake/fake-model";
	readonly thinkingLevel: ThinkingLevel = "off";
	running = false;
	disposed = false;
	aborted = 0;
	/** Every prompt accepted, in order. */
	readonly prompts: string[] = [];
	private readonly own: JsonObject[] = [];
	private streaming: JsonObject | undefined;
	private readonly listeners = new Set<(event: RuntimeEvent) => void>();

	constructor(
		readonly options: SideChatOptions,
		/** The conversation it was forked from (a copy). */
		readonly forked: JsonObject[],
	) {}

	get isBusy(): boolean {
		return this.running;
	}

	/** Accepts the prompt and starts a run: agent_start and the user's message; the reply is played by the test. */
	async prompt(text: string): Promise<void> {
		if (this.disposed) throw new CodedError("unavailable", "closed");
		if (this.running) throw new CodedError("busy", "the fake side chat is running");
		this.prompts.push(text);
		this.running = true;
		this.emit({ type: "agent_start" });
		const user = { role: "user", content: [{ type: "text", text }], timestamp: Date.now() };
		this.emit({ type: "message_start", message: user });
		this.own.push(user);
		this.emit({ type: "message_end", message: user });
	}

	/** Streams `text` as pi does: message_start, then text deltas whose event carries the whole partial message. */
	stream(text: string): void {
		const partial = assistant("");
		this.streaming = partial;
		this.emit({ type: "message_start", message: partial });
		this.emit({ type: "message_update", assistantMessageEvent: { type: "text_start", contentIndex: 0, partial }, message: partial });
		for (const word of text.split(/(?<= )/)) {
			(partial.content as Array<{ text: string }>)[0]!.text += word;
			this.emit({ type: "message_update", assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: word, partial }, message: partial });
		}
	}

	/** Ends the run: the streamed reply (or `stopReason`) as message_end, then turn_end and agent_end. */
	finish(stopReason: "stop" | "aborted" = "stop"): void {
		const reply = { ...(this.streaming ?? assistant("")), stopReason };
		this.streaming = undefined;
		this.own.push(reply);
		this.emit({ type: "message_end", message: reply });
		this.emit({ type: "turn_end", message: reply, toolResults: [] });
		this.running = false;
		this.emit({ type: "agent_end", messages: [reply] });
	}

	async abort(): Promise<void> {
		this.aborted++;
		if (this.running) this.finish("aborted");
	}

	messages(): JsonObject[] {
		return [...this.own];
	}

	streamingMessage(): JsonObject | undefined {
		return this.streaming;
	}

	emit(event: RuntimeEvent): void {
		for (const listener of this.listeners) listener(event);
	}

	subscribe(listener: (event: RuntimeEvent) => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	dispose(): void {
		this.disposed = true;
		this.running = false;
	}
}

function assistant(text: string): JsonObject {
	return {
		role: "assistant",
		content: [{ type: "text", text }],
		provider: "fake",
		model: "fake-model",
		usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { total: 0 } },
		stopReason: "stop",
		timestamp: Date.now(),
	};
}
