/**
 * POST /attachments: one image as the raw request body, its type as Content-Type, kept for a later message
 * (src/protocol/attachment-store.ts). Admitted as /rpc is (token, browser origin, loopback host rules); guests
 * never reach it. Answered 201 with `{id, mimeType, bytes}` once the image is on the disk, or with a 4xx naming
 * what was wrong: 413 too large, 415 not an image or not the declared type, 429 too many unused uploads.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { UploadRefused } from "../protocol/attachment-store.js";
import type { Dispatcher } from "../protocol/dispatch.js";
import { redactSecrets } from "../shared/redact.js";
import { sendJson, sendText } from "./http-reply.js";

export async function serveUpload(request: IncomingMessage, response: ServerResponse, dispatcher: Dispatcher): Promise<void> {
	const declared = request.headers["content-length"];
	const length = declared === undefined ? undefined : Number(declared);
	try {
		const stored = await dispatcher.upload(request, request.headers["content-type"], length);
		sendJson(response, 201, JSON.stringify(stored));
	} catch (error) {
		// A client gone mid-body has no one to read an answer: the connection is cut (routes.ts's `failed`).
		if (request.readableAborted || request.socket.destroyed) throw error;
		if (error instanceof UploadRefused) return sendText(response, error.status, error.message);
		sendText(response, 500, `The upload could not be kept: ${redactSecrets(error instanceof Error ? error.message : String(error))}`);
	}
}
