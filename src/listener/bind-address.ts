/** The `--listen <host:port>` address: parsing, loopback detection, and formatting for URLs. */
import { BlockList, isIP } from "node:net";
import { isHostName } from "./host-syntax.js";

/** Every spelling of a loopback address, IPv4-mapped IPv6 included. */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");
LOOPBACK.addSubnet("::ffff:127.0.0.0", 104, "ipv6");

export interface ListenAddress {
	host: string;
	port: number;
}

/**
 * Parses `127.0.0.1:8787`, `[::1]:8787`, `localhost:8787` or `0.0.0.0:0` (port 0: any free port).
 * Throws an error naming the bad value otherwise.
 */
export function parseListenAddress(text: string): ListenAddress {
	const fail = (why: string): never => {
		throw new Error(`--listen "${text}" is not a valid address: ${why} (expected host:port, e.g. 127.0.0.1:8787 or [::1]:8787)`);
	};
	if (text.trim() !== text || /\s/.test(text)) fail("it contains whitespace");
	let host: string;
	let portText: string;
	if (text.startsWith("[")) {
		const close = text.indexOf("]");
		if (close < 0) fail("an IPv6 address needs a closing bracket");
		host = text.slice(1, close);
		if (text[close + 1] !== ":") fail("a port must follow the bracketed address");
		portText = text.slice(close + 2);
		if (isIP(host) !== 6) fail(`"${host}" is not an IPv6 address`);
	} else {
		const colon = text.lastIndexOf(":");
		if (colon < 0) fail("the port is missing");
		host = text.slice(0, colon);
		portText = text.slice(colon + 1);
		if (host.includes(":")) fail("an IPv6 address must be bracketed, e.g. [::1]:8787");
		if (!isHostName(host)) {
			fail(host ? `"${host}" is not a host name or IP address` : "the host is missing");
		}
	}
	if (!/^\d{1,5}$/.test(portText)) fail(`the port "${portText}" is not a number`);
	const port = Number(portText);
	if (port > 65535) fail(`the port ${port} is out of range (0-65535)`);
	return { host, port };
}

/** True for addresses only this machine can reach: 127.0.0.0/8, ::1, ::ffff:127.x.x.x and `localhost`. */
export function isLoopbackHost(host: string): boolean {
	const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
	if (bare === "localhost") return true;
	const family = isIP(bare);
	return family !== 0 && LOOPBACK.check(bare, family === 4 ? "ipv4" : "ipv6");
}

/** `host:port` for a URL authority, with IPv6 addresses bracketed. */
export function formatHostPort(host: string, port: number): string {
	return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}
