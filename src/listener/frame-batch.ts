/**
 * The frames handed to one WebSocket within a tick, written to its connection together: one write (one
 * system call) for the hundreds of frames a burst of the model's stream makes, instead of ws's two writes and
 * a system call per frame, and no per-frame allocation beyond the shared frame. The first frame of a tick
 * leaves at once (a delta after a pause is not held back); the frames after it leave at the end of the tick,
 * or as soon as 16 KiB of them wait (a burst that runs as one long chain of promises can outlast many frames),
 * or with the next frame the owner says must not wait.
 *
 * The batch goes straight to the TCP socket under the WebSocket, as ws's own sender would write it. That is
 * safe because every frame is whole (a control frame ws writes in between, a ping, lands between two
 * messages, as RFC 6455 allows), and because nothing is written once the WebSocket is no longer open: ws's
 * close frame is the last thing on the wire. The owner flushes before it closes, so what was handed over
 * before a cut-off still precedes the close frame.
 */

/** Frames waiting this many bytes leave without waiting for the end of the tick. */
export const BATCH_FLUSH_BYTES = 16 * 1024;

/** Where a batch goes: the TCP socket (a net.Socket). */
export interface FrameTransport {
	write(chunk: Buffer, callback: (error?: Error | null) => void): boolean;
	/** Bytes written and not yet handed to the system (a net.Socket's); 0 right after a write the kernel took whole. */
	readonly writableLength?: number;
}

export type Written = (error?: Error | null) => void;

export class FrameBatch {
	private frames: Buffer[] = [];
	private callbacks: Written[] = [];
	private bytes = 0;
	private scheduled = false;

	/** `isOpen` says whether frames may still be written (the WebSocket is open). */
	constructor(
		private readonly transport: FrameTransport,
		private readonly isOpen: () => boolean,
	) {}

	/**
	 * Adds a whole frame; `written` is told once the write holding it is done (or failed). A frame that must not
	 * wait (`now`) leaves at once, with whatever waits before it.
	 */
	add(frame: Buffer, written: Written, now = false): void {
		this.frames.push(frame);
		this.callbacks.push(written);
		this.bytes += frame.length;
		if (now) this.flush();
		else if (!this.scheduled) {
			this.scheduled = true;
			process.nextTick(endOfTick, this);
			this.flush();
		} else if (this.bytes >= BATCH_FLUSH_BYTES) this.flush();
	}

	/** @internal the tick is over: what waits leaves, and the next frame opens a new tick */
	endTick(): void {
		this.scheduled = false;
		this.flush();
	}

	/** Writes what waits now (as one chunk); when the WebSocket is no longer open, fails it instead. */
	flush(): void {
		if (this.frames.length === 0) return;
		const { frames, callbacks, bytes } = this;
		this.frames = [];
		this.callbacks = [];
		this.bytes = 0;
		if (!this.isOpen()) {
			const error = new Error("WebSocket is not open");
			for (const written of callbacks) written(error);
			return;
		}
		// One chunk: copying a burst of small frames costs less than handing the socket each of them.
		const chunk = frames.length === 1 ? frames[0]! : Buffer.concat(frames, bytes);
		let told = false;
		const tell = (error?: Error | null) => {
			if (told) return;
			told = true;
			for (const written of callbacks) written(error);
		};
		this.transport.write(chunk, tell);
		// The kernel took it whole: it has left the process now. The socket's own callback comes on a later
		// tick, after whatever chain of promises is running, and a client that keeps up would count as behind
		// (and get merged deltas) for as long as that chain lasts.
		if (this.transport.writableLength === 0) tell();
	}
}

function endOfTick(batch: FrameBatch): void {
	batch.endTick();
}
