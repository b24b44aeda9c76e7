/**
 * `--listen-advertised-origin` (and `collab_start`'s `baseUrl`): a strict http(s) origin, used to build
 * collaboration links; and the origin links get when neither is given.
 */
import type { AddressInfo } from "node:net";
import { CodedError } from "../shared/errors.js";
import { isBracketedIPv6, isHostName } from "./host-syntax.js";

/** How much of a rejected origin an error quotes. */
const MAX_QUOTED_CHARS = 200;

/**
 * Returns the normalized origin (`scheme://host[:port]`, lowercase, default port dropped) or throws an
 * error that names what is wrong: only http/https, no credentials, path, query or fragment. `name` is what
 * the error calls the value (the flag, or `baseUrl`).
 */
export function parseAdvertisedOrigin(text: string, name = "--listen-advertised-origin"): string {
	const quote = (part: string) => (part.length > MAX_QUOTED_CHARS ? `${part.slice(0, MAX_QUOTED_CHARS)}…` : part);
	const fail = (why: string): never => {
		throw new Error(`${name} "${quote(text)}" is not an origin: ${why} (expected http(s)://host[:port])`);
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
		fail(`"${quote(host)}" is not a valid host name or address`);
	}
	if (port === "") fail("the port is missing after ':'");
	if (port !== undefined) {
		if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) fail(`the port "${quote(port)}" must be 1-65535`);
	}
	const defaultPort = lowerScheme === "http" ? "80" : "443";
	const portPart = port === undefined || String(Number(port)) === defaultPort ? "" : `:${Number(port)}`;
	return `${lowerScheme}://${host.toLowerCase()}${portPart}`;
}

/**
 * The origin of collaboration links: `baseUrl` when given (validated like the flag), else the advertised
 * origin, else the bound address. A wildcard bind (`0.0.0.0`, `::`) has no address guests could use, so
 * without either it fails with an error naming the flag.
 */
export function collabLinkOrigin(baseUrl: string | undefined, advertisedOrigin: string | undefined, bound: AddressInfo): string {
	if (baseUrl !== undefined) {
		try {
			return parseAdvertisedOrigin(baseUrl, "baseUrl");
		} catch (error) {
			throw new CodedError("invalid_command", (error as Error).message);
		}
	}
	if (advertisedOrigin !== undefined) return advertisedOrigin;
	if (bound.address === "0.0.0.0" || bound.address === "::") {
		throw new CodedError(
			"unavailable",
			`This listener is bound to every interface (${bound.address}), so it has no address to put in collaboration links: ` +
				"start skiff with --listen-advertised-origin http(s)://host[:port], or pass baseUrl to collab_start",
		);
	}
	const host = bound.family === "IPv6" ? `[${bound.address}]` : bound.address;
	return `http://${host}:${bound.port}`;
}
