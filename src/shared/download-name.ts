/**
 * The name a session is saved under: its own name when it has one (what the user calls it), else its id.
 * Content-Disposition carries an ASCII fallback (`filename`) and, when the name goes beyond ASCII, the name
 * itself (`filename*`, RFC 6266 and RFC 8187), so "Décisions d'API" is saved as such by every current browser.
 * Every replacement below is a single character class, so the work is linear in the name's length.
 */
import { redactSecrets } from "./redact.js";

/** Longest name kept, in characters (file systems take 255 bytes; a name is a title, not a document). */
const MAX_NAME_CHARS = 80;

export interface DownloadName {
	/** The name as saved where the browser honours `filename*`: the session's name, made safe as a file name. */
	fileName: string;
	/** Printable ASCII only, for `filename`: what older clients save. */
	asciiFileName: string;
	/** Whether the session's own name made it (else it is the id's). */
	named: boolean;
}

/** The file name of session `sessionId` (named `sessionName`, if it is) with `extension` (no dot). */
export function downloadName(sessionName: string | undefined, sessionId: string, extension: string): DownloadName {
	const fallback = `skiff-session-${sessionId.replace(/[^A-Za-z0-9._-]/g, "_")}.${extension}`;
	const title = sessionName === undefined ? "" : fileTitle(redactSecrets(sessionName));
	if (!title) return { fileName: fallback, asciiFileName: fallback, named: false };
	const ascii = title
		.normalize("NFKD")
		.replace(/\p{M}/gu, "")
		.replace(/[^A-Za-z0-9._ -]+/g, "-")
		.replace(/-{2,}/g, "-")
		.replace(/^[-. ]+|[-. ]+$/g, "");
	return { fileName: `${title}.${extension}`, asciiFileName: ascii ? `${ascii}.${extension}` : fallback, named: true };
}

/** The Content-Disposition header of an attachment saved as `name`. */
export function contentDisposition(name: DownloadName): string {
	const plain = `attachment; filename="${name.asciiFileName}"`;
	if (name.fileName === name.asciiFileName) return plain;
	return `${plain}; filename*=UTF-8''${encodeURIComponent(name.fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}

/** A name without what file systems or shells trip over: controls, separators, reserved characters, edge dots. */
function fileTitle(name: string): string {
	const cleaned = name
		.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, " ")
		.replace(/[/\\:*?"<>|]+/g, "-")
		.replace(/\s+/g, " ")
		.trim();
	return [...cleaned].slice(0, MAX_NAME_CHARS).join("").replace(/^[. ]+|[. ]+$/g, "");
}
