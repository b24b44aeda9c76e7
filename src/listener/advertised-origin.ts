/** `--listen-advertised-origin`: a strict http(s) origin, used to build collaboration links. */
import { readAuthority } from "./bind-address.js";

/** Ports a scheme implies; an origin that names its default port is written without it. */
const DEFAULT_PORTS: Record<string, number> = { http: 80, https: 443 };

/**
 * Returns the normalized origin `scheme://host[:port]` (scheme and host lowercased, default port dropped),
 * e.g. `HTTP://Box.LAN:80/` gives `http://box.lan`. Throws an error naming what is wrong: only http and
 * https, no credentials, no path other than `/`, no query or fragment, no whitespace, a host, a port
 * 1..65535, IPv6 bracketed.
 */
export function parseAdvertisedOrigin(text: string): string {
	const fail = (why: string): never => {
		throw new Error(`--listen-advertised-origin ${JSON.stringify(text)} is not an origin: ${why} (expected http(s)://host[:port])`);
	};
	if (text === "") return fail("it is empty");
	if (/\s/.test(text)) return fail("it contains whitespace");
	const match = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(.*)$/s.exec(text);
	if (!match) return fail("it must start with http:// or https://");
	const scheme = match[1]!.toLowerCase();
	const afterScheme = match[2]!;
	const defaultPort = DEFAULT_PORTS[scheme];
	if (defaultPort === undefined) return fail(`the scheme must be http or https, not ${match[1]}`);

	const authorityEnd = afterScheme.search(/[/?#]/);
	const authority = authorityEnd < 0 ? afterScheme : afterScheme.slice(0, authorityEnd);
	const rest = authorityEnd < 0 ? "" : afterScheme.slice(authorityEnd);
	if (authority.includes("@")) return fail("credentials (user:password@) are not allowed");
	const pathEnd = rest.search(/[?#]/);
	const path = pathEnd < 0 ? rest : rest.slice(0, pathEnd);
	const tail = pathEnd < 0 ? "" : rest.slice(pathEnd);
	if (path !== "" && path !== "/") return fail(`a path (${path}) is not allowed`);
	if (tail.startsWith("?")) return fail("a query is not allowed");
	if (tail.startsWith("#")) return fail("a fragment is not allowed");

	const parsed = readAuthority(authority);
	if (!parsed.ok) return fail(parsed.why);
	if (parsed.port === 0) return fail("the port must be 1-65535, not 0");
	const host = parsed.host.toLowerCase();
	const hostPart = host.includes(":") ? `[${host}]` : host;
	const portPart = parsed.port === undefined || parsed.port === defaultPort ? "" : `:${parsed.port}`;
	return `${scheme}://${hostPart}${portPart}`;
}
