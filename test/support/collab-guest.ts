/**
 * A collaboration guest for tests, on node:crypto (src/collab/channel.ts): it speaks docs/collab.md step by
 * step, so a test can also send what a well-behaved guest never would (raw frames, text, replays).
 */
import { randomBytes } from "node:crypto";
import WebSocket from "ws";
import { CollabChannel, capabilityOf } from "../../src/collab/channel.js";
import {
	type CollabHello,
	COLLAB_PATH_PREFIX,
	decodeBase64Url,
	guestSubprotocol,
	MAX_HOST_FRAME_BYTES,
	ROLE_KEY_BYTES,
} from "../../src/shared/collab-wire.js";

export interface ParsedLink {
	wsUrl: string;
	roomId: string;
	role: "control" | "view";
	key: Uint8Array;
}

/** The parts of a `collab_start` link. */
export function parseLink(link: string): ParsedLink {
	const url = new URL(link);
	const roomId = url.pathname.slice(COLLAB_PATH_PREFIX.length);
	const match = /^#([cv])=(.+)$/.exec(url.hash);
	if (!match) throw new Error("not a collaboration link");
	const key = decodeBase64Url(match[2]!, ROLE_KEY_BYTES);
	if (!key) throw new Error("bad key");
	return { wsUrl: `${url.origin.replace(/^http/, "ws")}${url.pathname}`, roomId, role: match[1] === "c" ? "control" : "view", key };
}

export interface HostMessage {
	type: string;
	[key: string]: any;
}

export class RawGuest {
	readonly messages: HostMessage[] = [];
	hello: CollabHello | undefined;
	channel: CollabChannel | undefined;
	closed: { code: number; reason: string } | undefined;
	/** Binary frames received, as sent (for replays). */
	readonly frames: Buffer[] = [];
	private readonly waiters = new Set<() => void>();
	private nextId = 1;

	private constructor(
		readonly socket: WebSocket,
		readonly link: ParsedLink,
		private readonly clientNonce: Uint8Array,
	) {
		socket.on("message", (data: Buffer, isBinary) => {
			if (!isBinary) {
				this.hello = JSON.parse(data.toString());
				this.channel = CollabChannel.guest(link.key, link.roomId, clientNonce, Buffer.from(this.hello!.serverNonce, "base64url"), MAX_HOST_FRAME_BYTES);
			} else {
				this.frames.push(Buffer.from(data));
				this.messages.push(JSON.parse(this.channel!.open(data).toString("utf8")));
			}
			this.wake();
		});
		socket.on("close", (code, reason) => {
			this.closed = { code, reason: reason.toString() };
			this.wake();
		});
	}

	/**
	 * Opens the socket with the link's capability (or `protocols` instead); rejects with the HTTP status when
	 * the upgrade is refused.
	 */
	static connect(link: string, options: { protocols?: string[]; nonce?: Uint8Array } = {}): Promise<RawGuest> {
		const parsed = parseLink(link);
		const clientNonce = options.nonce ?? randomBytes(16);
		const protocols = options.protocols ?? [guestSubprotocol(capabilityOf(parsed.key), clientNonce)];
		return new Promise((resolve, reject) => {
			const socket = new WebSocket(parsed.wsUrl, protocols);
			socket.once("open", () => resolve(new RawGuest(socket, parsed, clientNonce)));
			socket.once("error", reject);
			socket.once("unexpected-response", (_req, res) => {
				let body = "";
				res.on("data", (d: Buffer) => (body += d));
				res.on("end", () => reject(Object.assign(new Error(`HTTP ${res.statusCode}: ${body.trim()}`), { status: res.statusCode, body })));
			});
		});
	}

	/** Connects, waits for the hello, joins and waits for the snapshot. */
	static async join(link: string): Promise<RawGuest> {
		const guest = await RawGuest.connect(link);
		await guest.waitFor(() => guest.hello, "hello");
		guest.send({ type: "collab_join" });
		await guest.waitForMessage((m) => m.type === "collab_snapshot");
		return guest;
	}

	/** Seals and sends a payload as the next frame. */
	send(payload: unknown): Buffer {
		const frame = this.channel!.seal(Buffer.from(JSON.stringify(payload)));
		this.socket.send(frame, { binary: true });
		return frame;
	}

	sendRaw(data: Uint8Array | string, binary = typeof data !== "string"): void {
		this.socket.send(data, { binary });
	}

	/** Sends a command and resolves with its response. */
	async command(type: string, fields: Record<string, unknown> = {}): Promise<HostMessage> {
		const id = `c${this.nextId++}`;
		this.send({ type, id, ...fields });
		return this.waitForMessage((m) => m.type === "response" && m.id === id);
	}

	waitForMessage(match: (m: HostMessage) => boolean, from = 0): Promise<HostMessage> {
		let next = from;
		return this.waitFor(() => {
			for (; next < this.messages.length; next++) if (match(this.messages[next]!)) return this.messages[next];
			return undefined;
		}, "message");
	}

	waitForClose(): Promise<{ code: number; reason: string }> {
		return this.waitFor(() => this.closed, "close");
	}

	/**
	 * Resolves once `probe` returns a value; fails (instead of hanging) if the socket closes first, or after
	 * `timeoutMs` (a guard against a hung test, not a timed assertion).
	 */
	waitFor<T>(probe: () => T | undefined, what: string, timeoutMs = 15_000): Promise<T> {
		return new Promise((resolve, reject) => {
			const done = () => {
				clearTimeout(timer);
				this.waiters.delete(check);
			};
			const check = () => {
				const value = probe();
				if (value !== undefined) {
					done();
					resolve(value);
				} else if (this.closed && what !== "close") {
					done();
					reject(new Error(`closed (${this.closed.code} ${this.closed.reason}) while waiting for ${what}`));
				}
			};
			const timer = setTimeout(() => {
				done();
				reject(new Error(`timed out waiting for ${what}`));
			}, timeoutMs);
			this.waiters.add(check);
			check();
		});
	}

	close(): void {
		this.socket.close();
	}

	private wake(): void {
		for (const wake of [...this.waiters]) wake();
	}
}
