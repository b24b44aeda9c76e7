/**
 * File mentions: `@path` in a message sends that project file with it the way pi's own `@file` arguments do
 * (pi's file-processor: a `<file name="path">` block per file before the message's text; an image goes as image
 * content with an empty block), read with `files_read` (confined to the session's folder, secrets masked) and
 * bounded: at most MAX_MENTIONS files, each cut at MAX_MENTION_CHARS. A mention that names no file (`@someone`)
 * stays text. The user's bubble shows the blocks as chips again (`splitMentions`).
 */
import { type FilesReadResult, SkiffCommandError } from "../../../src/client/index.js";
import type { Attachment } from "./attachments.js";

export const MAX_MENTIONS = 8;
export const MAX_MENTION_CHARS = 64 * 1024;

/** `@` at the start or after a space, then a path (bounded: a path is at most 4,096 characters). */
const MENTION = /(?:^|\s)@([^\s@"<>]{1,4096})/g;

/** The paths mentioned in `text`, in order, each once; punctuation that ends a sentence is not part of a path. */
export function mentionedPaths(text: string): string[] {
	const paths = new Set<string>();
	for (const match of text.matchAll(MENTION)) {
		let path = match[1]!;
		while (/[.,;:!?)]$/.test(path)) path = path.slice(0, -1);
		if (path) paths.add(path);
	}
	return [...paths];
}

/**
 * The message with its mentioned files before it, and the images among them; rejects with the sentence to show
 * when a mentioned file cannot go (binary, refused, too many).
 */
export async function withMentions(message: string, read: (path: string) => Promise<FilesReadResult>): Promise<{ text: string; images: Attachment[] }> {
	const paths = mentionedPaths(message);
	const images: Attachment[] = [];
	let blocks = "";
	let files = 0;
	for (const path of paths) {
		let file: FilesReadResult;
		try {
			file = await read(path);
		} catch (error) {
			// Not a file of the project (a name, a handle): it stays text, as in pi.
			if (error instanceof SkiffCommandError && (error.code === "not_found" || error.code === "invalid_command")) continue;
			throw new Error(`@${path}: ${error instanceof Error ? error.message : String(error)}`);
		}
		if (++files > MAX_MENTIONS) throw new Error(`At most ${MAX_MENTIONS} files can be mentioned in one message`);
		if (file.kind === "binary") throw new Error(`@${path} is binary (${file.size.toLocaleString("en")} bytes): only text files and images go with a message`);
		if (file.kind === "image") {
			images.push({ type: "image", mimeType: file.mimeType, data: file.data });
			blocks += `<file name="${path}"></file>\n`;
			continue;
		}
		const cut = file.text.length > MAX_MENTION_CHARS || file.truncated;
		const text = file.text.slice(0, MAX_MENTION_CHARS);
		blocks += `<file name="${path}">\n${text}${cut ? `\n[… cut: the first ${text.length.toLocaleString("en")} characters of ${file.size.toLocaleString("en")} bytes]` : ""}\n</file>\n`;
	}
	return { text: blocks + message, images };
}

const OPEN = '<file name="';
/** An image's block is empty: its close follows the name. */
const CLOSE = "</file>\n";
/** A text's block ends with its text, a line break and the close on a line of its own. */
const LINE_CLOSE = "\n</file>\n";

/** A user message's text split into the files pi's `@file` blocks carry at its start and the text after them. */
export function splitMentions(text: string): { files: string[]; text: string } {
	const files: string[] = [];
	let at = 0;
	while (text.startsWith(OPEN, at)) {
		const nameEnd = text.indexOf('">', at);
		if (nameEnd < 0) break;
		const name = text.slice(at + OPEN.length, nameEnd);
		const end = blockEnd(text, nameEnd + 2);
		if (end < 0 || name.includes("\n")) break;
		files.push(name);
		at = end;
	}
	return { files, text: text.slice(at) };
}

/**
 * Where the block whose text starts at `body` ends (after its close), -1 when it has none. A file's text may
 * hold the close (an XML file, a fixture): only a close on a line of its own counts, and of those the first
 * followed by the next block; else the first (which a file with such a line of its own, mentioned last, ends
 * early: its rest shows as the message's text, so nothing the user typed is ever hidden).
 */
function blockEnd(text: string, body: number): number {
	if (text.startsWith(CLOSE, body)) return body + CLOSE.length;
	const first = text.indexOf(LINE_CLOSE, body);
	for (let close = first; close >= 0; close = text.indexOf(LINE_CLOSE, close + 1)) {
		if (text.startsWith(OPEN, close + LINE_CLOSE.length)) return close + LINE_CLOSE.length;
	}
	return first < 0 ? -1 : first + LINE_CLOSE.length;
}
