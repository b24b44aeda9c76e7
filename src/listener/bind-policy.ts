/** Start-up rules of the listener (spec section 1): who may bind where, and what the banner says. */
import { isLoopbackHost } from "./bind-address.js";

/** The banner's description of a bind. */
export type BindBanner = "loopback only" | "loopback, authentication enabled" | "remote, authentication enabled" | "remote, tokenless";

export type BindPolicy =
	| {
			ok: true;
			loopback: boolean;
			banner: BindBanner;
			warnings: string[];
	  }
	| { ok: false; error: string };

/**
 * Applies the start-up rules: loopback binds are fine with or without a token; anything else needs
 * `--listen-allow-insecure-remote` and then comes with loud warnings (no TLS). Example:
 * `decideBindPolicy({ host: "0.0.0.0", allowInsecureRemote: false, tokenConfigured: true })` refuses.
 */
export function decideBindPolicy(options: { host: string; allowInsecureRemote: boolean; tokenConfigured: boolean }): BindPolicy {
	const { host, allowInsecureRemote, tokenConfigured } = options;
	if (isLoopbackHost(host)) {
		return { ok: true, loopback: true, banner: tokenConfigured ? "loopback, authentication enabled" : "loopback only", warnings: [] };
	}
	if (!allowInsecureRemote) {
		return {
			ok: false,
			error:
				`refusing to listen on ${host}: it is not a loopback address and skiff has no TLS, so traffic would be ` +
				"plaintext. Bind 127.0.0.1 (and use an SSH tunnel or a TLS proxy), or pass --listen-allow-insecure-remote " +
				"(with --listen-token-file) to accept plaintext on the network.",
		};
	}
	const warnings = [
		"WARNING: listening on a non-loopback address over plaintext HTTP/WebSocket (no TLS).",
		"WARNING: anyone on the network path can read the conversation and the control traffic.",
		tokenConfigured
			? "WARNING: the bearer token travels in plaintext and can be captured by a passive observer."
			: "WARNING: no token: ANYONE who can reach this address can drive the agent (run commands on this machine).",
	];
	return { ok: true, loopback: false, banner: tokenConfigured ? "remote, authentication enabled" : "remote, tokenless", warnings };
}

/** `Control plane listening on http://<addr> (<mode>)`: tests and tools wait for this line. */
export function bannerLine(url: string, policy: { banner: BindBanner }): string {
	return `Control plane listening on ${url} (${policy.banner})`;
}
