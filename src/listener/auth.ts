/**
 * Who may use /ws and /rpc (docs/security.md). With a token file, a request must present the token, as a
 * bearer header or as the WebSocket subprotocol `skiff-auth.<token>`. Browsers are recognised by their
 * `Origin` header and must be same-origin; on a tokenless loopback listener the Host must also be a
 * loopback name, so neither a cross-site page nor a DNS-rebinding page can drive the agent.
 */
import { timingSafeEqual } from "node:crypto";
import { isLoopbackHost, readAuthority } from "./bind-address.js";

/** Prefix of the WebSocket subprotocol that carries the token: `skiff-auth.<token>`. */
export const SUBPROTOCOL_PREFIX = "skiff-auth.";

/** What the listener was started with. */
export interface AuthPolicy {
	/** The token from --listen-token-file; absent on a tokenless listener. */
	token?: string;
	/** Whether the listener is bound to a loopback address. */
	loopback: boolean;
}

/** The parts of an HTTP request the policy reads (node's IncomingMessage fits). */
export interface RequestHeaders {
	/** Header values by lowercase name. */
	headers: Record<string, string | string[] | undefined>;
	/** Raw name/value list, used to spot repeated headers that node merges or drops in `headers`. */
	rawHeaders?: string[];
}

/** Accept (with the subprotocol to echo on a WebSocket upgrade, if any) or refuse with a status. */
export type AuthDecision = { ok: true; protocol?: string } | { ok: false; status: number; reason: string };

/** Ports an Origin implies when it names none. */
const DEFAULT_PORTS: Record<string, number> = { http: 80, https: 443 };

const UNAUTHORIZED: AuthDecision = refuse(401, "unauthorized: missing or invalid token");

/** Compares two secrets in time that depends only on the longer length (and still compares lengths). */
export function constantTimeEqual(a: string, b: string): boolean {
	const left = Buffer.from(a, "utf8");
	const right = Buffer.from(b, "utf8");
	// timingSafeEqual needs equal lengths: both sides are zero-padded to the longer one.
	const length = Math.max(left.length, right.length, 1);
	const paddedLeft = Buffer.alloc(length);
	const paddedRight = Buffer.alloc(length);
	left.copy(paddedLeft);
	right.copy(paddedRight);
	const sameBytes = timingSafeEqual(paddedLeft, paddedRight);
	return sameBytes && left.length === right.length;
}

/**
 * Decides whether a request to /rpc (`websocket: false`) or a /ws upgrade (`websocket: true`) may go on.
 * Order: repeated singleton headers (400), then the browser origin rule (403), then the token (401).
 */
export function authorizeRequest(policy: AuthPolicy, request: RequestHeaders, options: { websocket: boolean }): AuthDecision {
	if (headerValues(request, "host").length > 1) return refuse(400, "bad request: repeated Host header");
	if (headerValues(request, "authorization").length > 1) return refuse(400, "bad request: repeated Authorization header");
	const browser = checkBrowserOrigin(policy, request);
	if (browser) return browser;
	const offered = options.websocket ? offeredSubprotocols(request) : [];
	if (policy.token === undefined) {
		// A page that kept a token from an earlier, token-protected run still connects: browsers abort the
		// handshake when none of their offered subprotocols is selected, so the first stale offer is echoed.
		const stale = offered.find((protocol) => protocol.startsWith(SUBPROTOCOL_PREFIX));
		return stale === undefined ? { ok: true } : { ok: true, protocol: stale };
	}
	for (const protocol of offered) {
		if (!protocol.startsWith(SUBPROTOCOL_PREFIX)) continue;
		const candidate = protocol.slice(SUBPROTOCOL_PREFIX.length);
		if (isCandidate(candidate) && constantTimeEqual(candidate, policy.token)) return { ok: true, protocol };
	}
	const bearer = bearerCandidate(headerValues(request, "authorization")[0]);
	if (bearer !== undefined && constantTimeEqual(bearer, policy.token)) return { ok: true };
	return UNAUTHORIZED;
}

/**
 * The browser rule. A request without `Origin` (a native client such as curl) passes. Otherwise `Origin`
 * must be one http(s) origin whose authority equals the one `Host`; on a tokenless loopback listener the
 * Host must also be a loopback name or address, which defeats DNS rebinding (the rebound page's Origin
 * and Host are both its own name). Returns a refusal, or undefined when the request may go on.
 */
export function checkBrowserOrigin(policy: AuthPolicy, request: RequestHeaders): AuthDecision | undefined {
	const origins = headerValues(request, "origin");
	if (origins.length === 0) return undefined;
	if (origins.length > 1) return refuse(403, "forbidden: repeated Origin header");
	const origin = parseOrigin(origins[0]!);
	if (!origin) return refuse(403, "forbidden: Origin must be an http or https origin");
	const hosts = headerValues(request, "host");
	if (hosts.length === 0) return refuse(400, "bad request: missing Host header");
	const host = readAuthority(hosts[0]!);
	if (!host.ok || host.port === 0) return refuse(400, "bad request: invalid Host header");
	const hostPort = host.port ?? DEFAULT_PORTS[origin.scheme]!;
	if (host.host.toLowerCase() !== origin.host || hostPort !== origin.port) {
		return refuse(403, "forbidden: Origin does not match Host");
	}
	if (policy.token === undefined && policy.loopback && !isLoopbackHost(host.host)) {
		return refuse(403, "forbidden: without a token, browsers must use localhost or a loopback address");
	}
	return undefined;
}

/** The entries of `Sec-WebSocket-Protocol` (every header line, comma-separated, trimmed), in offer order. */
export function offeredSubprotocols(request: RequestHeaders): string[] {
	return headerValues(request, "sec-websocket-protocol")
		.flatMap((value) => value.split(","))
		.map((protocol) => protocol.trim())
		.filter((protocol) => protocol.length > 0);
}

/** `{ scheme, host, port }` of an `http(s)://host[:port]` origin (no path, not even `/`), else undefined. */
function parseOrigin(value: string): { scheme: string; host: string; port: number } | undefined {
	const match = /^(https?):\/\/([^/?#@]*)$/i.exec(value);
	if (!match) return undefined;
	const scheme = match[1]!.toLowerCase();
	const authority = readAuthority(match[2]!);
	if (!authority.ok || authority.port === 0) return undefined;
	return { scheme, host: authority.host.toLowerCase(), port: authority.port ?? DEFAULT_PORTS[scheme]! };
}

/** The credential of `Bearer <token>` (scheme word case-insensitive, exactly one space), if well formed. */
function bearerCandidate(value: string | undefined): string | undefined {
	const match = value === undefined ? null : /^bearer (\S+)$/i.exec(value);
	return match ? match[1] : undefined;
}

function isCandidate(candidate: string): boolean {
	return candidate.length > 0 && !/\s/.test(candidate);
}

/** Every value sent for a header, one per header line when the raw list is known. */
function headerValues(request: RequestHeaders, name: string): string[] {
	if (request.rawHeaders) {
		const values: string[] = [];
		for (let i = 0; i + 1 < request.rawHeaders.length; i += 2) {
			if (request.rawHeaders[i]!.toLowerCase() === name) values.push(request.rawHeaders[i + 1]!);
		}
		return values;
	}
	const value = request.headers[name];
	return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

function refuse(status: number, reason: string): AuthDecision {
	return { ok: false, status, reason };
}
