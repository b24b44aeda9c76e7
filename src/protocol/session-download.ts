/**
 * A session as a file to download (GET /export/<sessionId>.html or .jsonl): the listener asks the dispatcher
 * for one and streams it, so it never sees the runtime. The JSONL is the session file itself, every branch,
 * as far as it is written when asked; the HTML is pi's standalone page, written to a private temporary folder
 * and removed once sent.
 */
import { createReadStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import type { RuntimeManager } from "../agent/runtime-manager.js";
import { CodedError } from "../shared/errors.js";

export const DOWNLOAD_FORMATS = ["html", "jsonl"] as const;
export type DownloadFormat = (typeof DOWNLOAD_FORMATS)[number];

/** A file ready to send: what it is, its size, its content (read once), and how to clean up after it. */
export interface SessionDownload {
	/** A safe file name for Content-Disposition. */
	fileName: string;
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
	const fileName = `skiff-session-${sessionId.replace(/[^A-Za-z0-9._-]/g, "_")}.${format}`;
	const contentType = CONTENT_TYPES[format];
	if (format === "jsonl") {
		// What is written now: entries appended while it is sent are not part of this copy.
		const size = statSync(file).size;
		return { fileName, contentType, size, open: () => readUpTo(file, size), dispose: () => undefined };
	}
	const dir = mkdtempSync(join(tmpdir(), "skiff-export-"));
	try {
		const page = await handle.exportHtml(join(dir, "session.html"));
		const size = statSync(page).size;
		return { fileName, contentType, size, open: () => readUpTo(page, size), dispose: () => rmSync(dir, { recursive: true, force: true }) };
	} catch (error) {
		rmSync(dir, { recursive: true, force: true });
		throw error;
	}
}

function readUpTo(path: string, size: number): Readable {
	return size === 0 ? Readable.from([]) : createReadStream(path, { start: 0, end: size - 1 });
}
