/** The bearer token file of `--listen-token-file`: read once at start-up, never echoed anywhere. */
import { closeSync, openSync, readSync, statSync } from "node:fs";

/** A token file larger than this is refused (a token is a short string). */
export const MAX_TOKEN_FILE_BYTES = 4096;

/**
 * Characters a browser can send in a WebSocket subprotocol value (RFC 7230 `tchar`); a token outside
 * this set could never be presented as `skiff-auth.<token>`.
 */
const TOKEN_CHARS = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Reads and checks the token. Errors name the file and the rule broken, never the content. */
export function readTokenFile(path: string): string {
	let size: number;
	try {
		const stats = statSync(path);
		if (!stats.isFile()) throw new Error(`token file ${path} is not a regular file`);
		size = stats.size;
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new Error(`token file ${path} does not exist (missing)`);
		if ((error as NodeJS.ErrnoException).code === "EACCES") throw new Error(`token file ${path} cannot be read (permission denied)`);
		throw error;
	}
	if (size > MAX_TOKEN_FILE_BYTES) throw new Error(`token file ${path} is larger than ${MAX_TOKEN_FILE_BYTES} bytes`);
	// Read at most one byte past the limit, so a file that grew since the size check is still refused.
	const buffer = Buffer.alloc(MAX_TOKEN_FILE_BYTES + 1);
	const fd = openSync(path, "r");
	let length: number;
	try {
		length = readSync(fd, buffer, 0, buffer.length, 0);
	} finally {
		closeSync(fd);
	}
	if (length > MAX_TOKEN_FILE_BYTES) throw new Error(`token file ${path} is larger than ${MAX_TOKEN_FILE_BYTES} bytes`);
	const token = buffer.subarray(0, length).toString("utf8").trim();
	if (token.length === 0) throw new Error(`token file ${path} is empty (only whitespace)`);
	if (/\s/.test(token)) throw new Error(`token in ${path} contains whitespace: use a single word`);
	if (!TOKEN_CHARS.test(token)) {
		throw new Error(
			`token in ${path} has characters a browser cannot send in a WebSocket subprotocol: use letters, digits and !#$%&'*+-.^_\`|~`,
		);
	}
	return token;
}

/** Warnings about a readable-by-others token file (printed at start-up; the file is still used). */
export function tokenFileWarnings(path: string): string[] {
	try {
		const mode = statSync(path).mode & 0o777;
		if (mode & 0o077) {
			return [`token file ${path} is readable by other users (mode ${mode.toString(8).padStart(3, "0")}); run chmod 600 ${path}`];
		}
	} catch {
		// readTokenFile reports unreadable files.
	}
	return [];
}

/**
 * A token shorter than this gets a warning at start-up. The throttle answers a guesser's failing attempts 429
 * but still checks each one, so that the owner, who may share the guesser's address (a proxy's), is never
 * locked out (docs/security.md); it therefore does not limit how many guesses are tried, and only the token's
 * length and randomness do.
 */
export const SHORT_TOKEN_CHARS = 20;

/** Warnings about a token that guessing could find (printed at start-up; the token is still used). */
export function tokenStrengthWarnings(path: string, token: string): string[] {
	if (token.length >= SHORT_TOKEN_CHARS) return [];
	return [
		`the token in ${path} is shorter than ${SHORT_TOKEN_CHARS} characters: failed attempts are throttled but still ` +
			"checked, so a short token can be guessed; use a long random one (docs/security.md shows how to make one)",
	];
}
