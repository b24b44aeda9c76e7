/**
 * Uploading an image ahead of the message that names it (POST /attachments beside the `/ws` route): a message
 * then carries it as `{type: "image", attachmentId}`, so eight images of 5 MiB fit where one 4 MiB WebSocket
 * message held about 2.8 MiB of base64.
 */
import { SkiffCommandError } from "./errors.js";
import type { ErrorCode } from "./protocol.generated.js";

/** What the service kept. */
export interface UploadedAttachment {
	/** Names the image in a message's `images`: `{type: "image", attachmentId: id}`. */
	id: string;
	mimeType: "image/png" | "image/jpeg" | "image/gif" | "image/webp";
	bytes: number;
}

/** The error code each refusal of the route stands for. */
const CODES: Record<number, ErrorCode> = { 400: "invalid_command", 401: "forbidden", 403: "forbidden", 413: "limit", 415: "invalid_command", 429: "limit", 503: "unavailable" };

/** The upload route next to a WebSocket route: `ws://host:port/ws` → `http://host:port/attachments`. */
export function uploadUrl(wsUrl: string): string {
	const url = new URL(wsUrl);
	url.protocol = url.protocol === "wss:" ? "https:" : "http:";
	url.pathname = url.pathname.replace(/\/ws$/, "/attachments");
	url.search = "";
	return url.href;
}

/** POSTs the image; rejects with a SkiffCommandError (command `upload`) naming what was wrong. */
export async function uploadImage(wsUrl: string, token: string | undefined, data: Blob | Uint8Array<ArrayBuffer>, mimeType: string): Promise<UploadedAttachment> {
	let response: Response;
	try {
		response = await fetch(uploadUrl(wsUrl), {
			method: "POST",
			headers: token ? { "Content-Type": mimeType, Authorization: `Bearer ${token}` } : { "Content-Type": mimeType },
			body: data,
		});
	} catch (error) {
		throw new SkiffCommandError("upload", "not_connected", `the upload did not reach the service: ${(error as Error).message}`);
	}
	const text = (await response.text()).trim();
	if (!response.ok) throw new SkiffCommandError("upload", CODES[response.status] ?? "failed", text || `HTTP ${response.status}`);
	return JSON.parse(text) as UploadedAttachment;
}
