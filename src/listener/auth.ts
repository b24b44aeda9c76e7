/**
 * Who may use /ws and /rpc (docs/security.md). With a token file, a request must present the token, as a
 * bearer header or as the WebSocket subprotocol `skiff-auth.<token>`. Browsers are recognised by their
 * `Origin` header and must be same-origin; on a loopback listener the Host must also be a loopback name, so
 * neither a cross-site page nor a DNS-rebinding page can drive the agent.
 */
import { timingSafeEqual } from "node:crypto";
import { isLoopbackHost } from "./bind-address.js";
import { isAuthority } from "./host-syntax.js";

export const SUBPROTOCOL_PREFIX = "skiff-auth.";

export interface AuthPolicy {
	/** The token from --listen-token-file; absent on a tokenless listener. */
	token?: string;
	/** Whether the listener is bound to a loopback address. */
	loopback: boolean;
}

/** The parts of an HTTP request the policy reads (node's IncomingMessage fits). */
export interface RequestHeaders {
	headers: Record<string, string | string[] | undefined>;
	/** Raw header list, used to spot repeated Host/Origin headers that node would merge or drop. */
	rawHeaders?: string[];
}

export type AuthDecision = { ok: true; protocol?: string } | { ok: false; status: number; reason: string };

const UNAUTHORIZED: AuthDecision = { ok: false, status: 401, reason: "unauthorized: missing or invalid token" };

/** Compares two secrets in time that depends only on the longer length. */
export function constantTimeEqual(a: string, b: string): boolean {
	const left = Buffer.from(a, "utf8");
	const right = Buffer.from(b, "utf8");
	const length = Math.max(left.length, right.length, 1);
	const paddedLeft = Buffer.alloc(length);
	const paddedRight = Buffer.alloc(length);
	left.copy(paddedLeft);
	right.copy(paddedRight);
	return timingSafeEqual(paddedLeft, paddedRight) && left.length === right.length;
}

/**
 * Decides whether a request to /ws or /rpc may proceed, before any upgrade or body read. On success for a
 * WebSocket, `protocol` is the offered subprotocol to echo. Example:
 * `authorizeRequest({ token, loopback: true }, req, { websocket: true })`.
 */
export function authorizeRequest(policy: AuthPolicy, request: RequestHeaders, options: { websocket: boolean }): AuthDecision {
	if (count(request, "host") > 1) return { ok: false, status: 400, reason: "bad request: repeated Host header" };
	// node keeps the first of repeated Authorization headers; which credential counts must not be a guess.
	if (count(request, "authorization") > 1) return { ok: false, status: 400, reason: "bad request: repeated Authorization header" };
	const browser = checkBrowserOrigin(policy, request);
	if (browser) return browser;
	const offered = options.websocket ? offeredProtocols(request) : [];
	// Browsers abort the handshake when none of their offered subprotocols is selected, so a `skiff-auth.*`
	// offer is echoed whenever the request is admitted: the matching one, else the first one.
	const firstOffer = offered.find((p) => p.startsWith(SUBPROTOCOL_PREFIX));
	if (policy.token === undefined) return { ok: true, protocol: firstOffer }; // a stale token still connects
	for (const protocol of offered) {
		if (!protocol.startsWith(SUBPROTOCOL_PREFIX)) continue;
		const candidate = protocol.slice(SUBPROTOCOL_PREFIX.length);
		if (isCandidate(candidate) && constantTimeEqual(candidate, policy.token)) return { ok: true, protocol };
	}
	const bearer = bearerCandidate(header(request, "authorization"));
	if (bearer !== undefined && constantTimeEqual(bearer, policy.token)) return { ok: true, protocol: firstOffer };
	return UNAUTHORIZED;
}

/**
 * Decides whether a session download (GET /export/...) may proceed: the rules of /rpc, and two more, because a
 * browser sends no `Origin` with a same-origin GET, so the browser rule cannot see where such a request comes
 * from. A request the browser marks as coming from another site (`Sec-Fetch-Site: cross-site` or `same-site`)
 * is refused; and on a tokenless loopback listener the `Host` must be a loopback name, so a DNS-rebinding
 * page (whose GET to its own name carries no `Origin`) cannot read a session.
 */
export function authorizeDownload(policy: AuthPolicy, request: RequestHeaders): AuthDecision {
	const decision = authorizeRequest(policy, request, { websocket: false });
	if (!decision.ok) return decision;
	const site = header(request, "sec-fetch-site")?.toLowerCase();
	if (site !== undefined && site !== "same-origin" && site !== "none") {
		return { ok: false, status: 403, reason: "forbidden: a download must come from this origin's own page" };
	}
	if (policy.loopback && policy.token === undefined) {
		const host = header(request, "host")?.toLowerCase();
		if (!host || !isAuthority(host)) return { ok: false, status: 400, reason: "bad request: invalid Host header" };
		if (!isLoopbackHost(hostnameOf(host))) {
			return { ok: false, status: 403, reason: "forbidden: a loopback listener serves downloads only at a loopback address" };
		}
	}
	return { ok: true };
}

/**
 * The browser rule: no Origin (a native client such as curl) passes; otherwise the Origin must be an
 * http(s) origin whose authority equals Host, and on a tokenless loopback listener Host must name a
 * loopback address (with a token, a TLS proxy's public name in front of a loopback bind is fine). Returns
 * a refusal, or undefined when the request may go on.
 */
function checkBrowserOrigin(policy: AuthPolicy, request: RequestHeaders): AuthDecision | undefined {
	if (count(request, "origin") === 0) return undefined;
	if (count(request, "origin") > 1) return { ok: false, status: 400, reason: "bad request: repeated Origin header" };
	const origin = normalizeOrigin(header(request, "origin"));
	if (!origin) return { ok: false, status: 403, reason: "forbidden: Origin must be an http(s) origin" };
	const host = header(request, "host")?.toLowerCase();
	if (!host || !isAuthority(host)) return { ok: false, status: 400, reason: "bad request: invalid Host header" };
	if (origin.authority !== stripDefaultPort(host, origin.scheme)) {
		return { ok: false, status: 403, reason: "forbidden: cross-origin request (Origin does not match Host)" };
	}
	if (policy.loopback && policy.token === undefined && !isLoopbackHost(hostnameOf(host))) {
		return { ok: false, status: 403, reason: "forbidden: a loopback listener accepts browsers only at a loopback address" };
	}
	return undefined;
}

function normalizeOrigin(value: string | undefined): { scheme: string; authority: string } | undefined {
	const match = value === undefined ? null : /^(https?):\/\/(.+)$/i.exec(value);
	if (!match || !isAuthority(match[2]!)) return undefined;
	const scheme = match[1]!.toLowerCase();
	return { scheme, authority: stripDefaultPort(match[2]!.toLowerCase(), scheme) };
}

function stripDefaultPort(authority: string, scheme: string): string {
	const suffix = scheme === "https" ? ":443" : ":80";
	return authority.endsWith(suffix) ? authority.slice(0, -suffix.length) : authority;
}

/** `host` of `host:port`, `[v6]:port` or a bare host. */
function hostnameOf(authority: string): string {
	if (authority.startsWith("[")) return authority.slice(0, authority.indexOf("]") + 1);
	const colon = authority.lastIndexOf(":");
	return colon < 0 ? authority : authority.slice(0, colon);
}

/** The credential of `Bearer <token>` (scheme case-insensitive), if well formed. */
function bearerCandidate(value: string | undefined): string | undefined {
	const match = value === undefined ? null : /^bearer ([^\s]+)$/i.exec(value);
	return match && isCandidate(match[1]!) ? match[1] : undefined;
}

function isCandidate(candidate: string): boolean {
	return candidate.length > 0 && !/\s/.test(candidate);
}

function offeredProtocols(request: RequestHeaders): string[] {
	const raw = request.headers["sec-websocket-protocol"];
	const values = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
	return values.flatMap((v) => v.split(",")).map((p) => p.trim()).filter((p) => p.length > 0);
}

function header(request: RequestHeaders, name: string): string | undefined {
	const value = request.headers[name];
	return Array.isArray(value) ? value[0] : value;
}

/** How many times a header was sent (node merges or drops repeats in `headers`). */
function count(request: RequestHeaders, name: string): number {
	if (!request.rawHeaders) return request.headers[name] === undefined ? 0 : 1;
	let n = 0;
	for (let i = 0; i < request.rawHeaders.length; i += 2) if (request.rawHeaders[i]!.toLowerCase() === name) n++;
	return n;
}
