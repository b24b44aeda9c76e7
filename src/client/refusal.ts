/**
 * Why a connection failed before it opened, told as precisely as the platform allows. Node (`ws`) sees the
 * HTTP status of a refused upgrade (401 token, 403 origin, 429 throttled) and network errors (ECONNREFUSED);
 * a browser only sees a close before open, so there the reason stays "refused or not running". The Node
 * explanations are used only by node.ts, so a browser bundle leaves them out.
 */

/** The kinds of failure a client can report when a connection does not open. */
export type RefusalKind =
	/** HTTP 401: the token was missing or wrong. */
	| "unauthorized"
	/** HTTP 403: the origin or address is not allowed. */
	| "forbidden"
	/**
	 * HTTP 429: this attempt was refused (a wrong token, or the origin), and so many failed from this address
	 * that the service stopped saying why. The service admits a valid token even then, so waiting cannot help.
	 */
	| "throttled"
	/** Another HTTP status instead of an upgrade. */
	| "http_status"
	/** Nothing answered (connection refused, unknown host, unreachable). */
	| "unreachable"
	/** A browser cannot tell: a wrong token, or the service is not running. */
	| "refused_or_down"
	/** The token has characters a subprotocol cannot carry (checked before connecting). */
	| "invalid_token"
	/** The socket could not be created (e.g. an invalid URL). */
	| "cannot_open";

export interface ConnectionRefusal {
	kind: RefusalKind;
	/** The HTTP status of the refused upgrade, when the platform shows it. */
	status?: number;
	/** A sentence for people, without the token. */
	message: string;
	/** Retrying cannot help until something changes (the token, the origin). */
	final: boolean;
}

/** What a browser can say: it sees only a close before open, whatever the cause. */
export const REFUSED_OR_DOWN: ConnectionRefusal = {
	kind: "refused_or_down",
	message: "the service refused the connection (wrong token?) or is not running",
	final: false,
};

/** Body text kept from a refusal: enough for the service's one-line reason. */
const MAX_REASON_CHARS = 200;

/** Explains an upgrade answered with an HTTP status instead of a WebSocket (Node only: see node.ts). */
export function describeHandshake(status: number, body: string, tokenOffered: boolean): ConnectionRefusal {
	const reason = body.trim().slice(0, MAX_REASON_CHARS);
	const said = `HTTP ${status}${reason ? `: ${reason}` : ""}`;
	if (status === 401) {
		const what = tokenOffered ? "the service refused the token" : "the service requires a token";
		return { kind: "unauthorized", status, message: `${what} (${said})`, final: true };
	}
	if (status === 403) return { kind: "forbidden", status, message: `the service refused this client (${said})`, final: true };
	if (status === 429) {
		const message = `the service refused this client, and too many failed authentications came from its address (${said})`;
		return { kind: "throttled", status, message, final: true };
	}
	return { kind: "http_status", status, message: `the service answered ${said} instead of opening a WebSocket`, final: false };
}

/** Explains a connection that failed below HTTP (Node only), e.g. `connect ECONNREFUSED 127.0.0.1:8787`. */
export function describeNetworkError(url: string, error: { code?: unknown; message?: unknown }): ConnectionRefusal | undefined {
	if (typeof error.code !== "string" || !/^E[A-Z]+$/.test(error.code)) return undefined;
	const detail = typeof error.message === "string" && error.message ? error.message : error.code;
	return { kind: "unreachable", message: `the service is not reachable at ${url} (${detail})`, final: false };
}
