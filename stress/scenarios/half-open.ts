/**
 * Half-open connections: hundreds of TCP connections that send part of a request's headers and stall, from
 * 20 loopback addresses, reconnecting whenever the service closes one. Meanwhile an authenticated client
 * (the listener has a token file) opens WebSockets and pings, and POSTs pings to /rpc: it must be served
 * every time, and quickly.
 */
import { rmSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { HEADERS_TIMEOUT_MS } from "../../src/listener/limits.js";
import { tempDir } from "../../test/support/skiff-process.js";
import { StressClient } from "../client.js";
import { fmt, maxOf, pct, type ScenarioResult } from "../result.js";
import { postRpc, rpcAgent } from "../rpc-post.js";
import { startService } from "../service.js";

export interface HalfOpenOptions {
	connections: number;
}

const ADDRESSES = 20;
const PROBES = 100;
const PROBE_GAP_MS = 50;
/** A stalled client reconnects this long after the service closed it (an eager attacker). */
const RECONNECT_MS = 10;
const TOKEN = "stress-token-for-a-local-run-only";
/** The documented header deadline (docs/security.md) and the slack allowed past it for the close to arrive. */
const HEADER_DEADLINE_MS = HEADERS_TIMEOUT_MS;
const CLOSE_GRACE_MS = 1_000;

export async function halfOpen(options: HalfOpenOptions): Promise<ScenarioResult> {
	const tokenDir = tempDir("skiff-stress-token-");
	const tokenFile = join(tokenDir, "token");
	writeFileSync(tokenFile, TOKEN, { mode: 0o600 });
	const service = await startService({ args: ["--listen-token-file", tokenFile] });
	const failures: string[] = [];
	/** Open stalled connections and when each connected. */
	const sockets = new Map<Socket, number>();
	let longestMs = 0;
	let attacking = true;
	let closedByService = 0;
	let opened = 0;
	try {
		const { port } = new URL(service.skiff.url);
		const stall = (index: number) => {
			if (!attacking) return;
			const socket = connect({ host: "127.0.0.1", port: Number(port), localAddress: `127.0.0.${2 + (index % ADDRESSES)}` });
			opened++;
			sockets.set(socket, performance.now());
			socket.on("connect", () => socket.write(`GET /ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\n`));
			// Read whatever comes (the 408 at the deadline): a socket that reads nothing never reaches the end of
			// stream behind that 408, so it would look open however long ago the service closed it.
			socket.resume();
			socket.on("error", () => {});
			socket.on("close", () => {
				longestMs = Math.max(longestMs, performance.now() - sockets.get(socket)!);
				sockets.delete(socket);
				if (!attacking) return;
				closedByService++;
				setTimeout(() => stall(index), RECONNECT_MS);
			});
		};
		for (let i = 0; i < options.connections; i++) stall(i);
		await new Promise((resolve) => setTimeout(resolve, 1_000));

		const headers = { authorization: `Bearer ${TOKEN}` };
		const wsMs: number[] = [];
		const rpcMs: number[] = [];
		const persistentMs: number[] = [];
		let wsServed = 0;
		let rpcServed = 0;
		const persistent = await StressClient.connect(service.skiff.wsUrl, { headers });
		const agent = rpcAgent();
		for (let i = 0; i < PROBES; i++) {
			let sent = performance.now();
			try {
				const client = await StressClient.connect(service.skiff.wsUrl, { headers });
				const response = await client.request({ type: "ping" }, 10_000);
				if (!response.success) failures.push(`ping over a new WebSocket failed: ${response.error}`);
				wsMs.push(performance.now() - sent);
				if (response.success) wsServed++;
				client.close();
			} catch (error) {
				failures.push(`a new authenticated WebSocket was not served: ${String(error)}`);
			}
			sent = performance.now();
			try {
				const answer = await postRpc(service.skiff.url, JSON.stringify({ type: "ping" }), "application/json", agent, headers);
				if (answer.status !== 200) failures.push(`/rpc ping answered ${answer.status}`);
				rpcMs.push(performance.now() - sent);
				if (answer.status === 200) rpcServed++;
			} catch (error) {
				failures.push(`/rpc ping was not served: ${String(error)}`);
			}
			sent = performance.now();
			const response = await persistent.request({ type: "ping" });
			if (!response.success) failures.push("ping on the open WebSocket failed");
			persistentMs.push(performance.now() - sent);
			await new Promise((resolve) => setTimeout(resolve, PROBE_GAP_MS));
		}
		agent.destroy();
		persistent.close();
		const stalledAtEnd = sockets.size;
		const now = performance.now();
		for (const connectedAt of sockets.values()) longestMs = Math.max(longestMs, now - connectedAt);
		const overdue = [...sockets.values()].filter((connectedAt) => now - connectedAt > HEADER_DEADLINE_MS + CLOSE_GRACE_MS).length;
		if (overdue > 0) failures.push(`${overdue} stalled connections still open past the ${HEADER_DEADLINE_MS / 1000} s header deadline (+ ${CLOSE_GRACE_MS} ms)`);
		if (longestMs > HEADER_DEADLINE_MS + CLOSE_GRACE_MS) failures.push(`a stalled connection lived ${fmt(longestMs, 0)} ms`);

		// Then without the churn: stalled connections that nobody evicts must meet the deadline itself.
		attacking = false;
		for (const socket of sockets.keys()) socket.destroy();
		const quiet = await stallQuietly(Number(port), options.connections);
		await new Promise((resolve) => setTimeout(resolve, HEADER_DEADLINE_MS + CLOSE_GRACE_MS));
		const pastDeadline = quiet.filter((socket) => !socket.closed).length;
		for (const socket of quiet) socket.destroy();
		if (pastDeadline > 0) {
			failures.push(`${pastDeadline} of ${options.connections} stalled connections still open ${fmt(HEADER_DEADLINE_MS + CLOSE_GRACE_MS)} ms after connecting`);
		}
		const summary = (samples: number[]) => `p50 ${fmt(pct(samples, 0.5), 1)}, p99 ${fmt(pct(samples, 0.99), 1)}, max ${fmt(maxOf(samples), 1)} ms`;
		return {
			name: "half-open connections",
			tried: `${options.connections} TCP connections from ${ADDRESSES} loopback addresses send part of a WebSocket upgrade's headers and stall, reconnecting ${RECONNECT_MS} ms after the service closes one; an authenticated client (token file) meanwhile connects and pings; then ${options.connections} more stall once and are left alone past the header deadline`,
			count: `${options.connections} stalling clients, ${fmt(opened)} connections opened in all; ${PROBES} probes each way`,
			failures: failures.slice(0, 10),
			figure: `authenticated client served ${wsServed} of ${PROBES} times over new WebSockets and ${rpcServed} of ${PROBES} over /rpc; new WebSocket + ping ${summary(wsMs)}; /rpc ping ${summary(rpcMs)}; ping on an open WebSocket ${summary(persistentMs)}; the service closed ${fmt(closedByService)} stalled connections (${stalledAtEnd} open at the end); the longest-lived stalled connection ${fmt(longestMs, 0)} ms; then ${options.connections} stalled connections left alone: ${pastDeadline} still open after the ${HEADER_DEADLINE_MS / 1000} s header deadline + ${CLOSE_GRACE_MS} ms`,
		};
	} finally {
		attacking = false;
		for (const socket of sockets.keys()) socket.destroy();
		await service.stop();
		rmSync(tokenDir, { recursive: true, force: true });
	}
}

/**
 * Opens `count` connections (from the scenario's addresses) that send part of an upgrade's headers, read whatever
 * comes, and never reconnect; resolves once all have connected (or failed to).
 */
export async function stallQuietly(port: number, count: number): Promise<Socket[]> {
	const sockets: Socket[] = [];
	const connected: Promise<void>[] = [];
	for (let i = 0; i < count; i++) {
		const socket = connect({ host: "127.0.0.1", port, localAddress: `127.0.0.${2 + (i % ADDRESSES)}` });
		socket.resume();
		socket.on("error", () => {});
		connected.push(
			new Promise<void>((resolve) => {
				socket.once("connect", () => {
					socket.write(`GET /ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\n`);
					resolve();
				});
				socket.once("close", () => resolve());
			}),
		);
		sockets.push(socket);
	}
	await Promise.all(connected);
	return sockets;
}
