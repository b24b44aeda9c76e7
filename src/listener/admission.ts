/**
 * Who may reach what acts: everything the listener checks before it serves /rpc, /export or /attachments, or completes a
 * WebSocket upgrade, in this order.
 *   1. An upgrade's shape: an HTTP/1.1 request with a Host (RFC 6455 §4.1). Malformed, not a wrong credential,
 *      so it is not counted against the address.
 *   2. The credentials: the token and browser rules of auth.ts (for /rpc, /ws, /export and /attachments), or a room's
 *      capability (for a guest). A valid credential is admitted, whatever failed before it from its address.
 *   3. The throttle (auth-throttle.ts), for a failing attempt only: an address with too many failures of that
 *      kind of credential is answered 429 (Retry-After) instead of its failure, which is then neither logged
 *      nor counted. Otherwise the failure is logged (address, route, reason; never a header's value) and
 *      counted. Checking first means the throttle no longer limits how many guesses are tried (what stops
 *      guessing is the credential's length and randomness: docs/security.md), but refusing a right one would
 *      hand a lock-out to whoever shares the owner's address (everyone, behind a proxy).
 * Which routes need admission is the routing's business (routes.ts, upgrade.ts); /web, for one, needs none.
 */
import type { IncomingMessage } from "node:http";
import type { CollabRoom, CollabRooms } from "../collab/rooms.js";
import type { CollabRole } from "../shared/collab-wire.js";
import { type AuthPolicy, authorizeDownload, authorizeRequest } from "./auth.js";
import { AuthThrottle, type CredentialKind } from "./auth-throttle.js";
import { COLLAB_UNAUTHORIZED, readGuestOffer } from "./collab-route.js";
import { peerAddress } from "./header-watch.js";
import type { ListenerLimits } from "./limits.js";
import type { Refusal } from "./refusal.js";

/** The HTTP routes that admit before they serve. */
export type AdmittedRoute = "/rpc" | "/export" | "/attachments";

/** A control socket's admission: the `skiff-auth.*` subprotocol to echo, if one was offered. */
export type SocketAdmission = { ok: true; protocol?: string } | Refusal;

/** A guest's admission: the room and role its capability opens, its subprotocol to echo, and its nonce. */
export type GuestAdmission = { ok: true; protocol: string; room: CollabRoom; role: CollabRole; clientNonce: Uint8Array } | Refusal;

export interface AdmissionOptions {
	auth: AuthPolicy;
	limits: Pick<ListenerLimits, "authFailuresPerWindow" | "authWindowMs">;
	log: (line: string) => void;
	/** The throttle's clock in ms; Date.now by default. */
	now?: () => number;
	/** The rooms whose capabilities admit guests; without them every guest is refused as unauthorized. */
	collab?: CollabRooms;
}

/** How the log names each kind's throttle, and the routes where its failing attempts then get 429. */
const THROTTLED: Record<CredentialKind, { name: string; routes: string }> = {
	control: { name: "control-plane", routes: "/ws, /rpc, /export and /attachments" },
	guest: { name: "collaboration", routes: "/collab/ws/<roomId>" },
};

export class Admission {
	private readonly throttle: AuthThrottle;

	constructor(private readonly options: AdmissionOptions) {
		const { limits } = options;
		this.throttle = new AuthThrottle({ maxFailures: limits.authFailuresPerWindow, windowMs: limits.authWindowMs }, options.now);
	}

	/** POST /rpc or /attachments (the same rules), or a download (which has rules of its own: see authorizeDownload). */
	request(request: IncomingMessage, route: AdmittedRoute): { ok: true } | Refusal {
		const { auth } = this.options;
		const check = () => (route === "/export" ? authorizeDownload(auth, request) : authorizeRequest(auth, request, { websocket: false }));
		return this.credentials(request, route, "control", check);
	}

	/** An upgrade to /ws. */
	controlSocket(request: IncomingMessage): SocketAdmission {
		return handshakeRefusal(request) ?? this.credentials(request, "/ws", "control", () => authorizeRequest(this.options.auth, request, { websocket: true }));
	}

	/**
	 * An upgrade to /collab/ws/<roomId>: an unknown room and a wrong capability are refused alike, so a refusal
	 * tells a guesser nothing. Whether the room is full or stopped is told after the upgrade (upgrade.ts).
	 */
	guest(request: IncomingMessage, roomId: string): GuestAdmission {
		return (
			handshakeRefusal(request) ??
			this.credentials(request, "/collab", "guest", (): GuestAdmission => {
				const offer = readGuestOffer(request);
				if (!offer.ok) return offer;
				const admitted = this.options.collab?.authenticate(roomId, offer.capability);
				if (!admitted) return { ok: false, status: 401, reason: COLLAB_UNAUTHORIZED };
				return { ok: true, protocol: offer.protocol, clientNonce: offer.clientNonce, ...admitted };
			})
		);
	}

	/** `check` of the credentials; a failure is throttled, or else logged and counted. */
	private credentials<T extends { ok: true }>(request: IncomingMessage, route: string, kind: CredentialKind, check: () => T | Refusal): T | Refusal {
		const decision = check();
		if (decision.ok) return decision;
		const address = peerAddress(request.socket);
		const waitMs = this.throttle.retryAfterMs(kind, address);
		if (waitMs > 0) {
			const seconds = Math.ceil(waitMs / 1000);
			const reason = `too many failed authentication attempts from this address: retry in ${seconds} s`;
			return { ok: false, status: 429, reason, retryAfterSeconds: seconds };
		}
		this.recordFailure(address, route, kind, decision);
		return decision;
	}

	private recordFailure(address: string, route: string, kind: CredentialKind, refusal: Refusal): void {
		const { log, limits } = this.options;
		log(`skiff: authentication failed from ${address} on ${route}: ${refusal.status} ${refusal.reason}`);
		if (this.throttle.recordFailure(kind, address)) {
			const { name, routes } = THROTTLED[kind];
			log(
				`skiff: ${address} failed ${name} authentication ${limits.authFailuresPerWindow} times within ` +
					`${limits.authWindowMs / 1000} s (the last on ${route}): its failing attempts on ${routes} get 429 ` +
					"until that window ends; valid credentials are still admitted",
			);
		}
	}
}

/** What is wrong with the shape of a WebSocket opening handshake, if anything (RFC 6455 §4.1). */
function handshakeRefusal(request: IncomingMessage): Refusal | undefined {
	if (request.httpVersionMajor < 1 || (request.httpVersionMajor === 1 && request.httpVersionMinor < 1)) {
		return { ok: false, status: 400, reason: "bad request: a WebSocket upgrade must be an HTTP/1.1 request" };
	}
	if (!request.headers.host) return { ok: false, status: 400, reason: "bad request: a WebSocket upgrade needs a Host header" };
	return undefined;
}
