/**
 * A session as a file to download (GET /export/<sessionId>.html or .jsonl): the listener asks the dispatcher
 * for one and streams it, so it never sees the runtime. Both are made in a private temporary folder and removed
 * once sent, and both are redacted as the page redacts what it shows (docs/security.md, "Session downloads"):
 * the JSONL is the session file, every branch, as far as it is written when asked, each line with its secrets
 * masked (a line without any is copied as it is); the HTML is pi's standalone page as the runtime seals it
 * (its policy in the page, its session redacted).
 */
import { once } from "node:events";
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import type { RuntimeManager } from "../agent/runtime-manager.js";
import { type DownloadName, downloadName } from "../shared/download-name.js";
import { CodedError } from "../shared/errors.js";
import { redactJsonLine } from "../shared/redact-value.js";

export const DOWNLOAD_FORMATS = ["html", "jsonl"] as const;
export type DownloadFormat = (typeof DOWNLOAD_FORMATS)[number];

/** A file ready to send: what it is, its size, its content (read once), and how to clean up after it. */
export interface SessionDownload {
	/** What it is saved as: the session's name (or its id), made safe as a file name (contentDisposition). */
	name: DownloadName;
	contentType: string;
	size: number;
	open(): Readable;
	/** Removes whatever was made for this download (call once it is sent, or given up). */
	dispose(): void;
}

const CONTENT_TYPES: Record<DownloadFormat, string> = {
	html: "text/html; charset=utf-8",
	jsonl: "application/x-ndjson; charset=utf-8",
};

/** The session `sessionId` (loaded again if it was unloaded) as a download; `conflict` when nothing is recorded yet. */
export async function sessionDownload(runtime: RuntimeManager, sessionId: string, format: DownloadFormat): Promise<SessionDownload> {
	const { handle } = await runtime.get(sessionId);
	const file = handle.sessionFile;
	if (!file || !handle.state().persisted) {
		throw new CodedError(
			"conflict",
			`Session ${sessionId} is not recorded yet, so there is nothing to export: it is written with its first message, plan, goal or name (--no-session records nothing)`,
		);
	}
	const name = downloadName(handle.state().sessionName, sessionId, format);
	const contentType = CONTENT_TYPES[format];
	const dir = mkdtempSync(join(tmpdir(), "skiff-export-"));
	try {
		const made =
			format === "jsonl"
				? await redactedCopy(file, statSync(file).size, join(dir, "session.jsonl")) // what is written now: later entries are not in it
				: await handle.exportHtml(join(dir, "session.html"));
		const size = statSync(made).size;
		return { name, contentType, size, open: () => readUpTo(made, size), dispose: () => rmSync(dir, { recursive: true, force: true }) };
	} catch (error) {
		rmSync(dir, { recursive: true, force: true });
		throw error;
	}
}

/**
 * Copies the first `size` bytes of the JSON Lines file `source` to `target`, line by line through
 * redactJsonLine, streaming (a long session costs time on the event loop in small pieces, never one block);
 * a last line without its newline stays without it. Returns `target`.
 */
async function redactedCopy(source: string, size: number, target: string): Promise<string> {
	const output = createWriteStream(target, { flags: "wx", mode: 0o600 });
	const write = async (text: string) => {
		if (!output.write(text)) await once(output, "drain");
	};
	try {
		const decoder = new StringDecoder("utf8");
		let pending = "";
		for await (const chunk of readUpTo(source, size)) {
			const lines = (pending + decoder.write(chunk as Buffer)).split("\n");
			pending = lines.pop()!;
			if (lines.length > 0) await write(`${lines.map(redactJsonLine).join("\n")}\n`);
		}
		pending += decoder.end();
		if (pending) await write(redactJsonLine(pending));
		output.end();
		await once(output, "finish");
	} finally {
		output.destroy();
	}
	return target;
}

function readUpTo(path: string, size: number): Readable {
	return size === 0 ? Readable.from([]) : createReadStream(path, { start: 0, end: size - 1 });
}
