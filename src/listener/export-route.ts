/**
 * GET /export/<sessionId>.html and /export/<sessionId>.jsonl: a session as a file the browser saves. The same
 * authentication as /rpc (see authorizeDownload), then the file streamed as an attachment that is never cached,
 * never sniffed as another type, and, should a browser render it anyway, sandboxed away from this origin (the
 * page keeps its token there).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { pipeline } from "node:stream";
import type { Dispatcher } from "../protocol/dispatch.js";
import type { DownloadFormat, SessionDownload } from "../protocol/session-download.js";
import { contentDisposition } from "../shared/download-name.js";
import { codeOf, type ErrorCode } from "../shared/errors.js";
import { redactSecrets } from "../shared/redact.js";
import { sendText } from "./http-reply.js";

/** `/export/<id>.<format>`: ids as sessions are named (see SESSION_ID_PATTERN), nothing to decode. */
const EXPORT_PATH = /^\/export\/([A-Za-z0-9][A-Za-z0-9._-]{0,127})\.(html|jsonl)$/;

/** What an export request asks for, or undefined when the path is not one. */
export function exportTarget(path: string): { sessionId: string; format: DownloadFormat } | undefined {
	const match = EXPORT_PATH.exec(path);
	return match ? { sessionId: match[1]!, format: match[2] as DownloadFormat } : undefined;
}

/** Whether a path is under /export/ (a malformed one gets 404, not the generic route). */
export function isExportPath(path: string): boolean {
	return path.startsWith("/export/");
}

const HTTP_STATUS: Partial<Record<ErrorCode, number>> = {
	unknown_session: 404,
	not_found: 404,
	conflict: 409,
	busy: 409,
	forbidden: 403,
	unavailable: 503,
};

/**
 * What may run in an exported page if a browser renders it: its own inline script and styles and inline
 * images, nothing fetched, in a sandbox (an opaque origin: it cannot read this origin's storage). The page
 * carries the same policy in a <meta> (src/agent/pi/export-page.ts), which holds once it is saved; the
 * sandbox and frame-ancestors work only as headers.
 */
const HTML_POLICY =
	"default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; " +
	"form-action 'none'; frame-ancestors 'none'; sandbox allow-scripts";
const DATA_POLICY = "default-src 'none'; frame-ancestors 'none'; sandbox";

export async function serveExport(
	request: IncomingMessage,
	response: ServerResponse,
	dispatcher: Dispatcher,
	target: { sessionId: string; format: DownloadFormat },
): Promise<void> {
	let download: SessionDownload;
	try {
		download = await dispatcher.download(target.sessionId, target.format);
	} catch (error) {
		const message = redactSecrets(error instanceof Error ? error.message : String(error));
		return sendText(response, HTTP_STATUS[codeOf(error)] ?? 500, message);
	}
	response.writeHead(200, {
		"Content-Type": download.contentType,
		"Content-Length": String(download.size),
		"Content-Disposition": contentDisposition(download.name),
		"Content-Security-Policy": target.format === "html" ? HTML_POLICY : DATA_POLICY,
		"Cache-Control": "no-store",
		"X-Content-Type-Options": "nosniff",
		"Cross-Origin-Resource-Policy": "same-origin",
		"Referrer-Policy": "no-referrer",
		"X-Frame-Options": "DENY",
	});
	if (request.method === "HEAD") {
		response.end();
		download.dispose();
		return;
	}
	// pipeline destroys both sides when either fails or the client goes away; the file is removed either way.
	pipeline(download.open(), response, () => download.dispose());
}
