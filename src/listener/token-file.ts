/** The bearer token file of `--listen-token-file`: read once at start-up, its content never echoed anywhere. */
import { closeSync, fstatSync, openSync, readSync, statSync } from "node:fs";

/** A token file larger than this is refused (a token is a short string). */
export const MAX_TOKEN_FILE_BYTES = 4096;

/**
 * Characters a browser can send in a WebSocket subprotocol value (RFC 7230 `tchar`). A token with any
 * other character could never be presented as `skiff-auth.<token>`, so it is refused at start-up rather
 * than failing later in the page.
 */
const TOKEN_CHARS = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Permission bits that give the group or other users any access to the file. */
const SHARED_MODE_BITS = 0o077;

/**
 * Reads and checks the token: a regular file (symlinks followed) of at most MAX_TOKEN_FILE_BYTES,
 * surrounding whitespace trimmed, non-empty, no whitespace inside, RFC 7230 `tchar` only. Errors name
 * the file and the rule broken, never the content.
 */
export function readTokenFile(path: string): string {
	const where = `token file ${path}`;
	let fd: number;
	try {
		// Checked before opening: opening a FIFO or a device could block start-up or read forever.
		if (!statSync(path).isFile()) throw new Error(`${where} is not a regular file`);
		fd = openSync(path, "r");
	} catch (error) {
		throw describeFileError(error, where);
	}
	let bytes: Buffer;
	try {
		// Checked again on the open file (it may have been replaced), and the read is bounded either way.
		if (!fstatSync(fd).isFile()) throw new Error(`${where} is not a regular file`);
		bytes = readAtMost(fd, MAX_TOKEN_FILE_BYTES + 1);
	} catch (error) {
		throw describeFileError(error, where);
	} finally {
		closeSync(fd);
	}
	if (bytes.length > MAX_TOKEN_FILE_BYTES) throw new Error(`${where} is larger than ${MAX_TOKEN_FILE_BYTES} bytes`);
	const token = bytes.toString("utf8").trim();
	if (token.length === 0) throw new Error(`${where} is empty (or only whitespace)`);
	if (/\s/.test(token)) throw new Error(`the token in ${where} contains whitespace: it must be a single word`);
	if (!TOKEN_CHARS.test(token)) {
		throw new Error(
			`the token in ${where} has characters a browser cannot send in a WebSocket subprotocol ` +
				"(skiff-auth.<token>): use only letters, digits and !#$%&'*+-.^_`|~ (base64url works)",
		);
	}
	return token;
}

/**
 * Warnings for start-up about a token file the group or other users can access (the token is still
 * used). Empty on Windows, where mode bits do not describe access.
 */
export function tokenFileWarnings(path: string): string[] {
	if (process.platform === "win32") return [];
	let mode: number;
	try {
		mode = statSync(path).mode & 0o777;
	} catch {
		return []; // readTokenFile reports unreadable files
	}
	if ((mode & SHARED_MODE_BITS) === 0) return [];
	const octal = mode.toString(8).padStart(3, "0");
	return [`token file ${path} is accessible to other users (mode ${octal}); restrict it with: chmod 600 ${path}`];
}

/** Reads up to `limit` bytes from the start of an open file. */
function readAtMost(fd: number, limit: number): Buffer {
	const buffer = Buffer.alloc(limit);
	let length = 0;
	while (length < limit) {
		const count = readSync(fd, buffer, length, limit - length, length);
		if (count === 0) break;
		length += count;
	}
	return buffer.subarray(0, length);
}

/** A file-system error restated with the file path and a plain cause (never the content). */
function describeFileError(error: unknown, where: string): Error {
	const code = (error as NodeJS.ErrnoException).code;
	if (code === undefined) return error instanceof Error ? error : new Error(`${where} cannot be read`);
	if (code === "ENOENT") return new Error(`${where} does not exist (missing)`);
	if (code === "EACCES" || code === "EPERM") return new Error(`${where} cannot be read (permission denied)`);
	if (code === "ENOTDIR") return new Error(`${where} does not exist (a parent is not a directory)`);
	if (code === "ELOOP") return new Error(`${where} cannot be read (too many symbolic links)`);
	if (code === "EISDIR") return new Error(`${where} is not a regular file`);
	return new Error(`${where} cannot be read (${code})`);
}
