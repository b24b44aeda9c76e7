/**
 * `files_read`: one regular file of the session's working directory, as the page can show it. The file is
 * opened once (without waiting on a FIFO or a device, without following a link at the last part: the path is
 * already resolved, so a link there was swapped in after the check), the open handle is checked to be the file
 * inside the root (Linux: /proc/self/fd names what was opened), and only a bounded head is read:
 *
 * - an image (PNG, JPEG, GIF, WebP, told by its first bytes as attachments are: src/protocol/image-check.ts) up to MAX_IMAGE_BYTES: base64 data with
 *   its type; SVG is active content and comes as text, never as an image;
 * - text: the first MAX_TEXT_BYTES as UTF-8 (`truncated` past them; a 50 MiB file costs one 1 MiB read), with its
 *   language; bytes that are not UTF-8 become U+FFFD and `encoding` says so; secrets are masked as in every text
 *   the service sends (`redacted` says when);
 * - anything else (a NUL or mostly control bytes in the first 8 KiB, a larger image): "binary", with its size.
 */
import { readlink } from "node:fs/promises";
import { basename } from "node:path";
import type { FileHandle } from "node:fs/promises";
import { imageTypeOf } from "../../protocol/image-check.js";
import { CodedError } from "../../shared/errors.js";
import { redactSecrets } from "../../shared/redact.js";
import { NotRegularFileError, openRegularFile } from "../../shared/regular-file.js";
import { checkInside, confine, fileError, shown } from "./confine.js";
import { languageOf } from "./language.js";
import { type FilesReadResult, MAX_IMAGE_BYTES, MAX_TEXT_BYTES } from "./schemas.js";

/** How much of the head decides between text and binary. */
const SNIFF_BYTES = 8192;
/** Above this share of control bytes (other than tab, line ends, form feed and escape) the head is not text. */
const MAX_CONTROL_SHARE = 0.1;

/** Whether the head looks like text: no NUL, and few control bytes. */
function looksLikeText(head: Buffer): boolean {
	const sample = head.subarray(0, SNIFF_BYTES);
	let control = 0;
	for (const byte of sample) {
		if (byte === 0) return false;
		if (byte < 0x20 && byte !== 9 && byte !== 10 && byte !== 13 && byte !== 12 && byte !== 27) control++;
	}
	return control <= sample.length * MAX_CONTROL_SHARE;
}

/** Up to `length` bytes from the start (fewer when the file is shorter now than it was). */
async function readHead(handle: FileHandle, length: number): Promise<Buffer> {
	const buffer = Buffer.alloc(length);
	let filled = 0;
	while (filled < length) {
		const { bytesRead } = await handle.read(buffer, filled, length - filled, filled);
		if (bytesRead === 0) break;
		filled += bytesRead;
	}
	return buffer.subarray(0, filled);
}

/** The head without a UTF-8 sequence cut at its end (when the file goes on past it). */
function wholeCharacters(bytes: Buffer): Buffer {
	let start = bytes.length - 1;
	// Back over continuation bytes (at most three) to the lead byte of the last sequence.
	while (start > 0 && bytes.length - start < 4 && (bytes[start]! & 0xc0) === 0x80) start--;
	const lead = bytes[start];
	if (lead === undefined || lead < 0xc0) return bytes;
	const needs = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
	return bytes.length - start < needs ? bytes.subarray(0, start) : bytes;
}

/** UTF-8 text, or (not valid UTF-8) the text with U+FFFD where bytes did not decode. */
function decode(bytes: Buffer): { text: string; encoding: "utf-8" | "invalid-utf-8" } {
	try {
		return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes), encoding: "utf-8" };
	} catch {
		return { text: new TextDecoder("utf-8").decode(bytes), encoding: "invalid-utf-8" };
	}
}

/** Refuses an open handle that is not the checked file (Linux names what an fd is; elsewhere the open is trusted). */
export async function checkOpened(handle: FileHandle, root: string, real: string, relative: string): Promise<void> {
	let opened: string;
	try {
		opened = await readlink(`/proc/self/fd/${handle.fd}`);
	} catch {
		return;
	}
	if (opened !== real) checkInside(root, opened, relative);
}

/** The file `path` of the session's working directory `cwd`, as text, image data, or "binary, N bytes". */
export async function readFile(cwd: string, path: string): Promise<FilesReadResult> {
	const { root, real, relative } = await confine(cwd, path);
	let handle: FileHandle;
	try {
		handle = await openRegularFile(real, "refuse");
	} catch (error) {
		if (error instanceof NotRegularFileError) {
			if (error.found === "a directory") throw new CodedError("invalid_command", `Invalid command: ${shown(relative)} is a folder: list it with files_list`);
			throw new CodedError("invalid_command", `Invalid command: ${shown(relative)} is not a regular file (${error.found}), so it is not read`);
		}
		throw fileError(error, relative);
	}
	try {
		await checkOpened(handle, root, real, relative);
		const size = (await handle.stat()).size;
		const head = await readHead(handle, Math.min(size, MAX_TEXT_BYTES));
		const mimeType = imageTypeOf(head);
		if (mimeType) {
			if (size > MAX_IMAGE_BYTES) return { kind: "binary", path: relative, size, mimeType, reason: `an image over ${MAX_IMAGE_BYTES / (1024 * 1024)} MiB is not sent` };
			const data = size <= head.length ? head : await readHead(handle, size);
			return { kind: "image", path: relative, size, mimeType, data: data.toString("base64") };
		}
		if (!looksLikeText(head)) return { kind: "binary", path: relative, size };
		const truncated = size > head.length;
		const { text, encoding } = decode(truncated ? wholeCharacters(head) : head);
		const masked = redactSecrets(text);
		return { kind: "text", path: relative, size, language: languageOf(basename(real)), encoding, truncated, redacted: masked !== text, text: masked };
	} catch (error) {
		throw fileError(error, relative);
	} finally {
		await handle.close().catch(() => undefined);
	}
}
