/**
 * The one rule for what a host looks like, wherever the listener reads one: `--listen`,
 * `--listen-advertised-origin`, and the Host and Origin headers of requests. Sharing it means a name
 * accepted at start-up is the same name a request may carry.
 */
import { isIP } from "node:net";

/** Longest DNS label (RFC 1035). */
export const MAX_LABEL_LENGTH = 63;
/** Longest DNS name in text form (RFC 1035: 255 octets on the wire are 253 characters written). */
export const MAX_HOST_NAME_LENGTH = 253;
/** Largest TCP port. */
export const MAX_PORT = 65_535;

/** One label: letters, digits and inner hyphens (RFC 1123). */
const LABEL = `[a-z0-9](?:[a-z0-9-]{0,${MAX_LABEL_LENGTH - 2}}[a-z0-9])?`;
/** A DNS host name: dot-separated labels, any case, no trailing dot. */
const DNS_NAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`, "i");

/**
 * A host that may stand unbracketed before `:port`: a DNS name (`localhost`, `Host.LAN`) or an IPv4
 * address. A host of only digits and dots must be a real IPv4 address (`999.1.1.1` is neither).
 */
export function isHostName(host: string): boolean {
	if (host.length > MAX_HOST_NAME_LENGTH || !DNS_NAME.test(host)) return false;
	return !/^[\d.]+$/.test(host) || isIP(host) === 4;
}

/** `[v6]`: an IPv6 address in brackets, as URLs and Host headers write it (no zone id). */
export function isBracketedIPv6(host: string): boolean {
	return /^\[[0-9a-f:.]+\]$/i.test(host) && isIP(host.slice(1, -1)) === 6;
}

/**
 * `host[:port]` as a Host header or an origin carries it: a host name, an IPv4 address or a bracketed
 * IPv6 address (never a bare one), and an optional port 0-65535.
 */
export function isAuthority(authority: string): boolean {
	const match = /^(\[[^\]]*\]|[^:[\]]*)(?::(\d{1,5}))?$/.exec(authority);
	if (!match) return false;
	const [, host, port] = match as unknown as [string, string, string | undefined];
	if (port !== undefined && Number(port) > MAX_PORT) return false;
	return host.startsWith("[") ? isBracketedIPv6(host) : isHostName(host);
}
