/**
 * `skiff --mode rpc`: the control protocol over standard input and output, as pi's RPC mode speaks it. One
 * JSON command per line in (strict LF framing, see line-reader.ts), one JSON response or event per line out.
 * Commands run concurrently, like those of one WebSocket (responses carry their `id`); the events are those
 * of the current session (see StdioLink). Like a listener, this transport knows the protocol, not the runtime.
 */
import type { PublishedEvent } from "../protocol/event-hub.js";
import type { Dispatcher } from "../protocol/dispatch.js";
import { MAX_CONCURRENT_COMMANDS, MAX_LINE_BYTES } from "./limits.js";
import { JsonlLineReader } from "./line-reader.js";
import { StdioLink } from "./stdio-link.js";
import type { LineOutput } from "./stdout-guard.js";

export interface StdioTransportOptions {
	/** Answers commands; before the core is loaded, a deferred dispatcher (commands wait for it). */
	dispatcher: Dispatcher;
	input: NodeJS.ReadableStream;
	output: LineOutput;
	/** The client is done: its input ended, or its end of the output is closed. */
	onEnd: (reason: "end of input" | "output closed") => void;
	/** Caps, for tests. */
	maxLineBytes?: number;
	maxConcurrentCommands?: number;
}

export class StdioTransport {
	readonly link = new StdioLink();
	private readonly reader: JsonlLineReader;
	private inFlight = 0;
	private readonly idleWaiters = new Set<() => void>();
	private outputClosed = false;
	private reading = true;
	private readonly onData = (chunk: Buffer | string) => this.reader.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
	private readonly onInputEnd = () => {
		if (!this.reading) return;
		this.reader.end();
		this.stopReading();
		this.options.onEnd("end of input");
	};

	constructor(private readonly options: StdioTransportOptions) {
		const maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
		this.reader = new JsonlLineReader(maxLineBytes, {
			line: (text) => this.receive(text),
			oversize: (bytes) =>
				this.send(
					JSON.stringify(
						options.dispatcher.refuse("", `Failed to parse command: the line is ${bytes} bytes, over the limit of ${maxLineBytes} bytes`, "parse_error"),
					),
				),
		});
		options.output.onError(() => this.closeOutput());
		options.input.on("data", this.onData);
		options.input.on("end", this.onInputEnd);
		options.input.on("error", this.onInputEnd);
	}

	/** The core is loaded: from now on the events of `sessionId` (the primary), then of each adopted session, are sent. */
	start(dispatcher: Dispatcher, sessionId: string): void {
		this.link.start(() => dispatcher.eventClient((published) => this.send(piShaped(published))), sessionId);
	}

	/** Reads no more commands (shutting down). */
	stopReading(): void {
		this.reading = false;
		this.options.input.off("data", this.onData);
		this.options.input.off("end", this.onInputEnd);
		this.options.input.off("error", this.onInputEnd);
		this.options.input.pause?.();
	}

	/** Resolves once every command read so far has been answered. */
	idle(): Promise<void> {
		if (this.inFlight === 0) return Promise.resolve();
		return new Promise((resolve) => this.idleWaiters.add(resolve));
	}

	/** Resolves once everything sent so far is handed to the system (or the output is gone). */
	flush(): Promise<void> {
		if (this.outputClosed) return Promise.resolve();
		return new Promise((resolve) => this.options.output.write("", () => resolve()));
	}

	/** Stops sending events. */
	close(): void {
		this.stopReading();
		this.link.close();
	}

	private receive(text: string): void {
		if (text.trim() === "") return; // blank lines separate nothing and are not commands
		const { dispatcher } = this.options;
		const limit = this.options.maxConcurrentCommands ?? MAX_CONCURRENT_COMMANDS;
		if (this.inFlight >= limit) {
			this.send(JSON.stringify(dispatcher.refuse(text, `Too many commands in flight (limit ${limit})`, "limit")));
			return;
		}
		this.inFlight++;
		dispatcher
			.dispatchText(text, this.link)
			.then((response) => this.send(JSON.stringify(response)))
			.catch(() => undefined) // dispatch turns every failure into a response; this only guards send()
			.finally(() => {
				if (--this.inFlight > 0) return;
				for (const wake of this.idleWaiters) wake();
				this.idleWaiters.clear();
			});
	}

	private send(line: string): void {
		if (this.outputClosed) return;
		this.options.output.write(`${line}\n`, (error) => {
			if (error) this.closeOutput();
		});
	}

	private closeOutput(): void {
		if (this.outputClosed) return;
		this.outputClosed = true;
		this.options.onEnd("output closed");
	}
}

/**
 * An event as pi's RPC clients expect it: a delta of block 0 carries `contentIndex: 0`, which the shared
 * wire form leaves out to keep the most frequent frame small. Everything else goes out as published.
 */
export function piShaped(published: PublishedEvent): string {
	const update = published.event.assistantMessageEvent as { type?: unknown; contentIndex?: unknown; delta?: unknown } | undefined;
	if (published.event.type !== "message_update" || update?.contentIndex !== undefined) return published.json;
	return JSON.stringify({ ...published.event, assistantMessageEvent: { type: update?.type, contentIndex: 0, delta: update?.delta } });
}
