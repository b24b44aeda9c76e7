/** Start-up rules of the listener (spec section 1): who may bind where, and what the banner says. */
import { isLoopbackHost } from "./bind-address.js";

/** The listener's mode, shown in parentheses at the end of the banner line. */
export type BindMode = "loopback only" | "loopback, authentication enabled" | "remote, authentication enabled" | "remote, tokenless";

/** The outcome of the start-up rules: a mode plus warnings to print, or an error to exit with. */
export type BindPolicy = { ok: true; loopback: boolean; banner: BindMode; warnings: string[] } | { ok: false; error: string };

/** The flag that opts in to plaintext listening off loopback. */
const INSECURE_REMOTE_FLAG = "--listen-allow-insecure-remote";

/**
 * Applies the start-up rules: a loopback bind is fine with or without a token; any other bind (including
 * `0.0.0.0`, `::` and host names) needs --listen-allow-insecure-remote and then comes with loud warnings,
 * because there is no TLS.
 */
export function decideBindPolicy(options: { host: string; allowInsecureRemote: boolean; tokenConfigured: boolean }): BindPolicy {
	const { host, allowInsecureRemote, tokenConfigured } = options;
	if (isLoopbackHost(host)) {
		return { ok: true, loopback: true, banner: tokenConfigured ? "loopback, authentication enabled" : "loopback only", warnings: [] };
	}
	const shown = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
	if (!allowInsecureRemote) {
		return {
			ok: false,
			error:
				`refusing to listen on ${shown}: it is not a loopback address and skiff has no TLS, so everything ` +
				"(the conversation, commands, any token) would cross the network in plaintext. Bind 127.0.0.1 or [::1] " +
				`and reach it through an SSH tunnel or a TLS proxy, or pass ${INSECURE_REMOTE_FLAG} ` +
				"(ideally with --listen-token-file) to accept plaintext on the network.",
		};
	}
	const warnings = [
		`WARNING: listening on ${shown}, which is not loopback, over plaintext HTTP and WebSocket (no TLS; ${INSECURE_REMOTE_FLAG}).`,
		"WARNING: anyone on the network path can observe the traffic: the conversation, file contents and command output.",
		tokenConfigured
			? "WARNING: the token itself travels in plaintext; a passive observer can capture it and then drive the agent."
			: "WARNING: no --listen-token-file: ANYONE who can reach this address can drive the agent and run commands as this user.",
		"WARNING: prefer a loopback bind reached through an SSH tunnel or a TLS proxy.",
	];
	return { ok: true, loopback: false, banner: tokenConfigured ? "remote, authentication enabled" : "remote, tokenless", warnings };
}

/**
 * The start-up line tests and tools wait for, e.g.
 * `Control plane listening on http://127.0.0.1:8787 (loopback only)`.
 */
export function bannerLine(url: string, policy: { banner: BindMode }): string {
	return `Control plane listening on ${url} (${policy.banner})`;
}

