/**
 * The /ws control socket: one JSON command per text frame in, responses and followed sessions' events out.
 * Commands of one socket run concurrently (responses carry ids). Everything outbound goes through the
 * client's OutboundQueue, so a client that stops reading never slows anyone else: it is only behind (and
 * gets merged deltas) until it is beyond its caps, then it is cut off with 1008. What the queue hands over
 * leaves as whole text frames, each event's encoded once for all its followers, batched per tick
 * (text-frame.ts, frame-batch.ts). A heartbeat ping finds peers that are gone.
 */
import type { WebSocket } from "ws";
import type { Dispatcher } from "../protocol/dispatch.js";
import type { ListenerLimits } from "./limits.js";
import { MAX_CONCURRENT_COMMANDS } from "./limits.js";
import { FrameBatch, type FrameTransport } from "./frame-batch.js";
import { type Backlog, type OutboundBudget, OutboundQueue } from "./outbound-queue.js";
import { textFrame } from "./text-frame.js";

/** Close codes the server uses (RFC 6455). */
export const CLOSE_GOING_AWAY = 1001;
export const CLOSE_UNSUPPORTED_DATA = 1003;
export const CLOSE_POLICY_VIOLATION = 1008;

/** The close reasons of a cut-off (1008). */
export const NOT_READING = "client is not reading messages";
export const NO_PONG = "client did not answer ping";

export interface ControlSocketOptions {
	limits: ListenerLimits;
	/** The outbound budget shared by every WebSocket of the listener. */
	budget: OutboundBudget;
	log: (line: string) => void;
	/** `address:port` of the client, for log lines. */
	peer: string;
	/**
	 * The TCP socket under the WebSocket. With it, messages leave as whole frames batched per tick
	 * (frame-batch.ts); without it, through ws one by one.
	 */
	transport?: FrameTransport;
}

/**
 * How the events that come in bursts begin (the model's streaming updates): only they wait for the end of the
 * tick. Every other message (a response, a job's or the tree's change, a message's end) leaves at once, as it
 * did before frames were batched, so it is not held behind work that the same tick goes on to start.
 */
const STREAMING_EVENT = '{"type":"message_update"';

/** One client's control socket, as the listener's heartbeat and shutdown see it. */
export class ControlConnection {
	private readonly queue: OutboundQueue;
	private readonly batch: FrameBatch | undefined;
	private awaitingPong = false;
	private cut = false;

	constructor(
		private readonly socket: WebSocket,
		dispatcher: Dispatcher,
		private readonly options: ControlSocketOptions,
	) {
		const { limits, transport } = options;
		const batch = transport ? new FrameBatch(transport, () => socket.readyState === socket.OPEN) : undefined;
		this.batch = batch;
		this.queue = new OutboundQueue(
			{ write: batch ? (text, written) => batch.add(textFrame(text), written, !text.startsWith(STREAMING_EVENT)) : (text, written) => socket.send(text, written) },
			{ maxMessages: limits.clientQueueMessages, maxBytes: limits.clientQueueBytes, highWaterBytes: limits.writeHighWaterBytes },
			options.budget,
			(backlog) => this.cutOff(NOT_READING, backlog),
		);
		const subscriptions = dispatcher.eventClient((published) => this.queue.push(published), () => this.queue.drained());
		let inFlight = 0;
		socket.on("message", (data, isBinary) => {
			if (isBinary) {
				socket.close(CLOSE_UNSUPPORTED_DATA, "binary frames are not supported: send one JSON command per text frame");
				return;
			}
			const text = data.toString();
			if (inFlight >= MAX_CONCURRENT_COMMANDS) {
				const message = `Too many commands in flight on this socket (limit ${MAX_CONCURRENT_COMMANDS})`;
				this.queue.push(JSON.stringify(dispatcher.refuse(text, message, "limit")));
				return;
			}
			if (inFlight++ === 0) this.queue.pauseMerging(true);
			dispatcher
				.dispatchText(text, subscriptions)
				.then((response) => this.queue.push(JSON.stringify(response)))
				.catch(() => undefined) // dispatch turns every failure into a response; this only guards push()
				.finally(() => {
					if (--inFlight === 0) this.queue.pauseMerging(false);
				});
		});
		socket.on("pong", () => (this.awaitingPong = false));
		socket.on("close", () => {
			this.queue.close();
			subscriptions.close();
		});
		socket.on("error", () => {
			this.queue.close();
			subscriptions.close();
		});
	}

	/** Writes out at once what was handed to the socket this tick (before the listener closes it). */
	flush(): void {
		this.batch?.flush();
	}

	/**
	 * One heartbeat: a client that has not answered the previous ping is cut off, the others are pinged.
	 * Called by the listener every heartbeat interval.
	 */
	heartbeat(): void {
		if (this.cut || this.socket.readyState !== this.socket.OPEN) return;
		if (this.awaitingPong) return this.cutOff(NO_PONG);
		this.awaitingPong = true;
		this.socket.ping();
	}

	/**
	 * Cuts the client off cheaply: whatever waits for it is dropped at once, the close frame (1008, `reason`)
	 * follows the little already handed to the socket, and the connection is destroyed after a short grace
	 * if the client does not complete the close handshake.
	 */
	private cutOff(reason: string, backlog?: Backlog): void {
		if (this.cut) return;
		this.cut = true;
		this.queue.close();
		this.flush(); // what was handed over goes before the close frame
		const behind = backlog ? ` (${backlog.messages} messages, ${backlog.bytes} bytes waiting)` : "";
		this.options.log(`skiff: cut off WebSocket client ${this.options.peer} with 1008: ${reason}${behind}`);
		this.socket.close(CLOSE_POLICY_VIOLATION, reason);
		const grace = setTimeout(() => this.socket.terminate(), this.options.limits.cutOffGraceMs);
		grace.unref();
		this.socket.once("close", () => clearTimeout(grace));
	}
}
