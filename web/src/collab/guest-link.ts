/**
 * A collaboration link as the guest page reads it: `<origin>/collab/ws/<roomId>#c=<key>` (control) or
 * `#v=<key>` (view). The key lives only in the fragment, which browsers never send to the server; the page
 * reads it once and removes it from the address bar. Errors say what is wrong with a link, never its key.
 */
import {
	COLLAB_PATH_PREFIX,
	type CollabRole,
	decodeBase64Url,
	ROLE_KEY_BYTES,
	ROOM_ID_PATTERN,
} from "../../../src/shared/collab-wire.js";

export interface GuestLink {
	/** `http(s)://host[:port]` of the service. */
	origin: string;
	roomId: string;
	role: CollabRole;
	/** The role key (32 bytes); never leaves the page except as its capability hash. */
	key: Uint8Array<ArrayBuffer>;
}

export type GuestLinkResult = { ok: true; link: GuestLink } | { ok: false; error: string };

export const NOT_A_LINK = "This is not a collaboration link (expected …/collab/ws/<room>#c=… or #v=…).";
export const NO_KEY =
	"This link has no key: the part after # is missing. Ask the host for the whole link (some apps cut it off).";
export const BAD_KEY = "This link's key is damaged (the part after #c= or #v=). Ask the host for the link again.";

/** Reads a link (the page's own address, or one pasted). */
export function parseGuestLink(href: string): GuestLinkResult {
	let url: URL;
	try {
		url = new URL(href);
	} catch {
		return { ok: false, error: NOT_A_LINK };
	}
	const roomId = url.pathname.startsWith(COLLAB_PATH_PREFIX) ? url.pathname.slice(COLLAB_PATH_PREFIX.length) : "";
	if ((url.protocol !== "http:" && url.protocol !== "https:") || !ROOM_ID_PATTERN.test(roomId)) return { ok: false, error: NOT_A_LINK };
	const fragment = /^#([cv])=(.*)$/s.exec(url.hash);
	if (!url.hash || url.hash === "#") return { ok: false, error: NO_KEY };
	if (!fragment) return { ok: false, error: BAD_KEY };
	const key = decodeBase64Url(fragment[2]!, ROLE_KEY_BYTES);
	if (!key) return { ok: false, error: BAD_KEY };
	return { ok: true, link: { origin: url.origin, roomId, role: fragment[1] === "c" ? "control" : "view", key } };
}

/** Whether the page was opened as a guest (its path is a room's); the page then shows the guest view. */
export function isGuestPath(pathname: string): boolean {
	return pathname.startsWith(COLLAB_PATH_PREFIX);
}

/**
 * Reads the page's own link, then removes the fragment from the address bar and history entry (so the key is
 * not left in the history, a bookmark or a screenshot of the bar). Call once, at start-up.
 */
export function takeGuestLink(location: { href: string; pathname: string; search: string }, history: { replaceState(data: unknown, unused: string, url: string): void }): GuestLinkResult {
	const result = parseGuestLink(location.href);
	history.replaceState(null, "", `${location.pathname}${location.search}`);
	return result;
}

/** The WebSocket URL of a link's room: the same origin and path, ws(s) instead of http(s). */
export function socketUrlOf(link: GuestLink): string {
	return `${link.origin.replace(/^http/, "ws")}${COLLAB_PATH_PREFIX}${link.roomId}`;
}
