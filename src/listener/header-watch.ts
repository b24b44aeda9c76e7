/**
 * Connections waiting for request headers: just opened, half-sent, or idle between keep-alive requests.
 * Each gets the header deadline (then 408 and close), and they are capped per client address and in total:
 * when a new one would exceed a cap, the oldest waiting connection (of that address, or of the address with
 * the most) is closed. A client that sends its headers at once is therefore always served, however many
 * stalled connections someone else (or the same address) holds open, with or without a token.
 */
import type { Socket } from "node:net";
import { replyOnSocket } from "./http-reply.js";

export interface HeaderWatchLimits {
	headersTimeoutMs: number;
	maxPerAddress: number;
	maxTotal: number;
}

interface Watched {
	readonly address: string;
	/** Requests received and not yet answered (pipelining can make it more than one). */
	active: number;
	/** Set while the connection waits for headers. */
	timer: NodeJS.Timeout | undefined;
	upgraded: boolean;
}

/** The client address of a socket, IPv4-mapped IPv6 written as IPv4. */
export function peerAddress(socket: Socket): string {
	const address = socket.remoteAddress ?? "unknown";
	return address.startsWith("::ffff:") && address.includes(".") ? address.slice("::ffff:".length) : address;
}

export class HeaderWatch {
	private readonly watched = new Map<Socket, Watched>();
	/** Waiting connections per address, oldest first (a Set keeps insertion order). */
	private readonly waiting = new Map<string, Set<Socket>>();
	private waitingTotal = 0;

	constructor(private readonly limits: HeaderWatchLimits) {}

	/** A new connection: it waits for its first request's headers. */
	opened(socket: Socket): void {
		const entry: Watched = { address: peerAddress(socket), active: 0, timer: undefined, upgraded: false };
		this.watched.set(socket, entry);
		socket.once("close", () => {
			this.stopWaiting(socket, entry);
			this.watched.delete(socket);
		});
		this.startWaiting(socket, entry);
	}

	/** A request's headers arrived on `socket`. */
	requestStarted(socket: Socket): void {
		const entry = this.watched.get(socket);
		if (!entry) return;
		entry.active++;
		this.stopWaiting(socket, entry);
	}

	/** A response was sent in full: with nothing else in progress, the connection waits for headers again. */
	requestEnded(socket: Socket): void {
		const entry = this.watched.get(socket);
		if (!entry || entry.upgraded) return;
		entry.active = Math.max(0, entry.active - 1);
		if (entry.active === 0 && !socket.destroyed) this.startWaiting(socket, entry);
	}

	/** The connection became a WebSocket (or was refused one): it no longer speaks HTTP. */
	upgraded(socket: Socket): void {
		const entry = this.watched.get(socket);
		if (!entry) return;
		entry.upgraded = true;
		this.stopWaiting(socket, entry);
	}

	/** Connections waiting for headers now (for tests and diagnostics). */
	get waitingCount(): number {
		return this.waitingTotal;
	}

	private startWaiting(socket: Socket, entry: Watched): void {
		if (entry.timer) return;
		this.makeRoom(entry.address);
		let sameAddress = this.waiting.get(entry.address);
		if (!sameAddress) this.waiting.set(entry.address, (sameAddress = new Set()));
		sameAddress.add(socket);
		this.waitingTotal++;
		const seconds = this.limits.headersTimeoutMs / 1000;
		entry.timer = setTimeout(() => {
			this.stopWaiting(socket, entry);
			replyOnSocket(socket, 408, `request headers not received within ${seconds} s`);
		}, this.limits.headersTimeoutMs);
		entry.timer.unref();
	}

	private stopWaiting(socket: Socket, entry: Watched): void {
		if (!entry.timer) return;
		clearTimeout(entry.timer);
		entry.timer = undefined;
		const sameAddress = this.waiting.get(entry.address)!;
		sameAddress.delete(socket);
		if (sameAddress.size === 0) this.waiting.delete(entry.address);
		this.waitingTotal--;
	}

	/** Closes the oldest waiting connections until one more from `address` fits both caps. */
	private makeRoom(address: string): void {
		const sameAddress = this.waiting.get(address);
		if (sameAddress && sameAddress.size >= this.limits.maxPerAddress) this.evictOldest(sameAddress);
		while (this.waitingTotal >= this.limits.maxTotal) {
			let busiest: Set<Socket> | undefined;
			for (const sockets of this.waiting.values()) if (!busiest || sockets.size > busiest.size) busiest = sockets;
			if (!busiest) return;
			this.evictOldest(busiest);
		}
	}

	private evictOldest(sockets: Set<Socket>): void {
		const oldest = sockets.values().next().value!;
		this.stopWaiting(oldest, this.watched.get(oldest)!);
		oldest.destroy();
	}
}
