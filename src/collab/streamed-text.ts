/**
 * Text that streams to one collaboration guest: each content block of the reply being written (text and
 * thinking), each running tool's output and the user's shell command's output goes
 * through its own StreamRedactor (src/shared/redact-stream.ts), so what the guest gets never holds a piece of a
 * secret, however the text was cut into deltas. A delta carries what became safe to show (none is sent while
 * nothing did); the rest goes out with the block's end event, in a `delta` (`outputDelta` for tool and shell
 * output) of its own, so a block's deltas join to exactly the redacted whole text.
 *
 * A stream the guest did not see from its start (it joined while a tool ran, or pi replaced a long tool
 * output by its tail) is not streamed: its start may have cut a secret in two. Its end event brings the whole
 * text, redacted. The blocks of the message streaming when a snapshot is taken start their streams from the
 * snapshot's text, which shows only what is safe so far. A tool call's arguments are not streamed at all:
 * their JSON text escapes quotes, so `{\"password\": \"…\"}` is no pair to redaction; toolcall_end brings them
 * parsed, each string redacted.
 */
import type { WireEvent } from "../protocol/coalesce.js";
import { redactedSoFar, StreamRedactor } from "../shared/redact-stream.js";
import { DEPTH_MARKER, MAX_PUBLIC_DEPTH } from "./public-view.js";

/** A running tool's output stream; `closed` once it can no longer be followed (its tail replaced it). */
interface ToolStream {
	redactor: StreamRedactor;
	started: boolean;
	closed: boolean;
}

type Fields = Record<string, unknown>;

export class StreamedText {
	/** The streams of the blocks of the assistant message being written, by content index. */
	private readonly blocks = new Map<number, StreamRedactor>();
	private readonly tools = new Map<string, ToolStream>();
	private shell: StreamRedactor | undefined;

	/** Forgets every stream (a new snapshot starts the guest's transcript again). */
	reset(): void {
		this.blocks.clear();
		this.tools.clear();
		this.shell = undefined;
	}

	/**
	 * An assistant message as far as it streamed (a snapshot's, or a message_start's): its text and thinking
	 * show only what is safe so far, and their streams go on from there; a tool call's partial arguments show
	 * what is safe so far of each string.
	 */
	seed(message: unknown): unknown {
		this.blocks.clear();
		const record = message as { role?: unknown; content?: unknown } | null;
		if (record?.role !== "assistant" || !Array.isArray(record.content)) return message;
		const content = record.content.map((block: unknown, index) => {
			const part = block as Fields | null;
			const key = part?.type === "text" ? "text" : part?.type === "thinking" ? "thinking" : undefined;
			if (key && typeof part![key] === "string") {
				const redactor = new StreamRedactor();
				this.blocks.set(index, redactor);
				return { ...part, [key]: redactor.push(part![key] as string) };
			}
			if (part?.type === "toolCall") return { ...part, arguments: soFar(part.arguments) };
			return block;
		});
		return { ...record, content };
	}

	/**
	 * The event as this guest gets it: the same object when it carries no streamed text, a copy with the text
	 * that became safe to show, or undefined when there is nothing to send.
	 */
	event(event: WireEvent): WireEvent | undefined {
		const fields = event as unknown as Fields;
		switch (event.type) {
			case "message_start": {
				const seeded = this.seed(fields.message);
				return seeded === fields.message ? event : ({ ...event, message: seeded } as WireEvent);
			}
			case "message_update":
				return this.blockEvent(event, fields.assistantMessageEvent as Fields);
			case "message_end":
				this.blocks.clear();
				return event;
			case "tool_execution_start":
				this.tools.set(String(fields.toolCallId), { redactor: new StreamRedactor(), started: false, closed: false });
				return event;
			case "tool_execution_update":
				return this.toolUpdate(event, fields);
			case "tool_execution_end": {
				const stream = this.tools.get(String(fields.toolCallId));
				this.tools.delete(String(fields.toolCallId));
				return stream && !stream.closed ? withRest(event, "outputDelta", stream.redactor.end()) : event;
			}
			case "bash_execution_start":
				this.shell = new StreamRedactor();
				return event;
			case "bash_execution_update": {
				if (!this.shell) return undefined;
				const shown = this.shell.push(String(fields.outputDelta ?? ""));
				// The cap is news even when no text came with it.
				return shown || fields.capped ? ({ ...event, outputDelta: shown } as WireEvent) : undefined;
			}
			case "bash_execution_end": {
				const shell = this.shell;
				this.shell = undefined;
				return shell ? withRest(event, "outputDelta", shell.end()) : event;
			}
			case "agent_end":
				// A run that ended left no block or tool running.
				this.blocks.clear();
				this.tools.clear();
				return event;
			default:
				return event;
		}
	}

	private blockEvent(event: WireEvent, part: Fields | undefined): WireEvent | undefined {
		const type = String(part?.type);
		const index = typeof part?.contentIndex === "number" ? part.contentIndex : 0;
		if (type === "text_start" || type === "thinking_start") {
			this.blocks.set(index, new StreamRedactor());
			return event;
		}
		// A tool call's arguments stream as JSON text, whose escaped quotes hide a `"password": "…"` from
		// redaction: guests get them whole, parsed, in toolcall_end.
		if (type === "toolcall_delta") return undefined;
		const redactor = this.blocks.get(index);
		if (type.endsWith("_delta")) {
			const shown = redactor?.push(String(part!.delta ?? ""));
			return shown ? ({ ...event, assistantMessageEvent: { ...part, delta: shown } } as WireEvent) : undefined;
		}
		if (type.endsWith("_end") && redactor) {
			this.blocks.delete(index);
			const rest = redactor.end();
			return rest ? ({ ...event, assistantMessageEvent: { ...part, delta: rest } } as WireEvent) : event;
		}
		return event;
	}

	private toolUpdate(event: WireEvent, fields: Fields): WireEvent | undefined {
		const stream = this.tools.get(String(fields.toolCallId));
		if (!stream || stream.closed) return undefined;
		if (typeof fields.outputDelta === "string") {
			if (!stream.started) return undefined; // a delta always follows a whole output (event-shape.ts)
			const shown = stream.redactor.push(fields.outputDelta);
			return shown ? ({ ...event, outputDelta: shown } as WireEvent) : undefined;
		}
		const output = fields.partialResult as { content?: unknown } | undefined;
		const blocks = Array.isArray(output?.content) ? (output.content as Fields[]) : [];
		if (blocks.every((b) => b?.type === "text")) {
			// The whole output so far: the first one starts the stream; a later one is its tail after pi cut
			// the head off, which may have cut a secret in two, so the guest then waits for the result.
			if (stream.started) {
				stream.closed = true;
				return undefined;
			}
			stream.started = true;
			const text = stream.redactor.push(blocks.map((b) => String(b.text ?? "")).join(""));
			return { ...event, partialResult: { ...output, content: [{ type: "text", text }] } } as WireEvent;
		}
		// Output with images comes whole every time: each shows what is safe so far of its text.
		const content = blocks.map((b) => (b?.type === "text" ? { ...b, text: redactedSoFar(String(b.text ?? "")) } : b));
		return { ...event, partialResult: { ...output, content } } as WireEvent;
	}
}

/** `event` with `rest` (the end of a stream, held back until now) in `key`, when there is any. */
function withRest(event: WireEvent, key: string, rest: string): WireEvent {
	return rest ? ({ ...event, [key]: rest } as WireEvent) : event;
}

/** Every string in a partial value (a tool call's arguments as they stream) as far as it is safe so far. */
function soFar(value: unknown, depth = 0): unknown {
	if (typeof value === "string") return redactedSoFar(value);
	if (typeof value !== "object" || value === null) return value;
	if (depth >= MAX_PUBLIC_DEPTH) return DEPTH_MARKER;
	if (Array.isArray(value)) return value.map((item) => soFar(item, depth + 1));
	return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, soFar(item, depth + 1)]));
}
