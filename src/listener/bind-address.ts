/**
 * Host and port syntax: the `--listen <host:port>` address, URL authorities (`Host`, the authority of an
 * `Origin`), loopback detection, and formatting an address for a URL.
 */
import { BlockList, isIP } from "node:net";

/** Highest TCP port number. */
export const MAX_PORT = 65535;

/** Longest DNS name (RFC 1035) and longest label within it. */
const MAX_HOST_NAME_LENGTH = 253;
const HOST_LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/i;

/**
 * Loopback addresses: 127.0.0.0/8 and ::1. BlockList also matches IPv4-mapped IPv6 addresses
 * (`::ffff:127.0.0.1`, `::ffff:7f00:1`) against the IPv4 rule, which is the choice documented at
 * isLoopbackHost.
 */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

/** A `--listen` address; an IPv6 host is kept without brackets. */
export interface ListenAddress {
	host: string;
	port: number;
}

/** A parsed `host[:port]`; an IPv6 host is kept without brackets; `port` is absent when not written. */
export type AuthorityResult = { ok: true; host: string; port?: number } | { ok: false; why: string };

/**
 * Parses `127.0.0.1:8787`, `[::1]:8787`, `localhost:8787` or `0.0.0.0:0` (port 0: any free port).
 * Throws an error naming the bad value and what is wrong with it otherwise.
 */
export function parseListenAddress(text: string): ListenAddress {
	const fail = (why: string): never => {
		throw new Error(`--listen ${JSON.stringify(text)} is not a valid address: ${why} (expected host:port, e.g. 127.0.0.1:8787 or [::1]:8787)`);
	};
	const authority = readAuthority(text);
	if (!authority.ok) return fail(authority.why);
	if (authority.port === undefined) return fail("the port is missing");
	return { host: authority.host, port: authority.port };
}

/**
 * Parses a URL authority `host[:port]` (`example.com`, `127.0.0.1:8787`, `[::1]:8787`) without name
 * resolution. Ports 0..65535 pass; callers that need a connectable port reject 0 themselves.
 */
export function readAuthority(text: string): AuthorityResult {
	const fail = (why: string): AuthorityResult => ({ ok: false, why });
	if (text === "") return fail("it is empty");
	if (/\s/.test(text)) return fail("it contains whitespace");
	let host: string;
	let portText: string | undefined;
	if (text.startsWith("[")) {
		const close = text.indexOf("]");
		if (close < 0) return fail("an IPv6 address needs a closing bracket");
		host = text.slice(1, close);
		const rest = text.slice(close + 1);
		if (rest !== "" && !rest.startsWith(":")) return fail("only :port may follow a bracketed IPv6 address");
		if (isIP(host) !== 6) return fail(`[${host}] is not an IPv6 address`);
		portText = rest === "" ? undefined : rest.slice(1);
	} else {
		const colon = text.indexOf(":");
		if (colon !== text.lastIndexOf(":")) return fail("an IPv6 address must be bracketed, e.g. [::1]:8787");
		host = colon < 0 ? text : text.slice(0, colon);
		portText = colon < 0 ? undefined : text.slice(colon + 1);
		if (host === "") return fail("the host is missing");
		if (!isHostNameOrIPv4(host)) return fail(`"${host}" is not a host name or IPv4 address`);
	}
	if (portText === undefined) return { ok: true, host };
	if (portText === "") return fail("the port is empty");
	if (!/^\d{1,5}$/.test(portText)) return fail(`the port "${portText}" is not a number`);
	const port = Number(portText);
	if (port > MAX_PORT) return fail(`the port ${port} is out of range (above ${MAX_PORT})`);
	return { ok: true, host, port };
}

/**
 * True for hosts only this machine can reach: 127.0.0.0/8, ::1 (any spelling, bracketed or not) and the
 * name `localhost` (not `*.localhost`, and not `localhost.`: those depend on resolver configuration).
 * IPv4-mapped `::ffff:127.x.x.x` counts as loopback because a socket bound to it, or a connection made
 * to it, only ever carries IPv4 loopback traffic. `0.0.0.0`, `::` and every other address are not loopback.
 */
export function isLoopbackHost(host: string): boolean {
	const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
	if (bare.toLowerCase() === "localhost") return true;
	const family = isIP(bare);
	if (family === 0) return false;
	try {
		return LOOPBACK.check(bare, family === 4 ? "ipv4" : "ipv6");
	} catch {
		// Zone-scoped IPv6 (`fe80::1%eth0`) and other forms BlockList cannot read are not loopback.
		return false;
	}
}

/** `host:port` for a URL authority, with an IPv6 host bracketed (`[::1]:8787`). */
export function formatHostPort(host: string, port: number): string {
	return host.includes(":") && !host.startsWith("[") ? `[${host}]:${port}` : `${host}:${port}`;
}

/** A dotted IPv4 address, or a DNS name made of letters, digits, `-` and `_` labels. */
function isHostNameOrIPv4(host: string): boolean {
	if (isIP(host) === 4) return true;
	// All-numeric names such as `999.1.1.1` or `127.1` are malformed IPv4, not names (URLs parse them as IPv4).
	if (/^[0-9.]+$/.test(host)) return false;
	return host.length <= MAX_HOST_NAME_LENGTH && host.split(".").every((label) => HOST_LABEL.test(label));
}
