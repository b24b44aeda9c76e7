/** `--listen-advertised-origin`: a strict http(s) origin, used to build collaboration links. */
import { isBracketedIPv6, isHostName } from "./host-syntax.js";

/**
 * Returns the normalized origin (`scheme://host[:port]`, lowercase, default port dropped) or throws an
 * error that names what is wrong: only http/https, no credentials, path, query or fragment.
 */
export function parseAdvertisedOrigin(text: string): string {
	const fail = (why: string): never => {
		throw new Error(`--listen-advertised-origin "${text}" is not an origin: ${why} (expected http(s)://host[:port])`);
	};
	if (/\s/.test(text)) fail("it contains whitespace");
	const match = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)(.*)$/.exec(text);
	if (!match) fail("it is not an absolute URL");
	const [, scheme, authority, rest] = match as unknown as [string, string, string, string];
	const lowerScheme = scheme.toLowerCase();
	if (lowerScheme !== "http" && lowerScheme !== "https") fail(`the scheme must be http or https, not ${scheme}`);
	if (authority.includes("@")) fail("credentials (user:password@) are not allowed");
	if (rest.startsWith("?") || rest.includes("?")) fail("a query is not allowed");
	if (rest.includes("#")) fail("a fragment is not allowed");
	if (rest !== "" && rest !== "/") fail("a path is not allowed");
	let host: string;
	let port: string | undefined;
	if (authority.startsWith("[")) {
		const close = authority.indexOf("]");
		if (close < 0) fail("an IPv6 address needs a closing bracket");
		host = authority.slice(0, close + 1);
		if (!isBracketedIPv6(host)) fail(`${host} is not an IPv6 address`);
		const after = authority.slice(close + 1);
		if (after && !after.startsWith(":")) fail("unexpected text after the address");
		port = after ? after.slice(1) : undefined;
	} else {
		const parts = authority.split(":");
		if (parts.length > 2) fail("an IPv6 address must be bracketed");
		host = parts[0]!;
		port = parts[1];
	}
	if (!host) fail("the host is missing");
	if (!host.startsWith("[") && !isHostName(host)) {
		fail(`"${host}" is not a valid host name or address`);
	}
	if (port === "") fail("the port is missing after ':'");
	if (port !== undefined) {
		if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) fail(`the port "${port}" must be 1-65535`);
	}
	const defaultPort = lowerScheme === "http" ? "80" : "443";
	const portPart = port === undefined || String(Number(port)) === defaultPort ? "" : `:${Number(port)}`;
	return `${lowerScheme}://${host.toLowerCase()}${portPart}`;
}
