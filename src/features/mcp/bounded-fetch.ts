/**
 * The fetch an HTTP MCP server is reached with: the SDK's requests, with each answer to a request (JSON or the
 * event stream of one POST) bounded to MAX_MESSAGE_BYTES, so a server that answers 50 MB fails the call with a
 * clear error instead of filling memory. The long-lived GET stream of server notifications is left unbounded in
 * total (each of its events is small or the SDK's parser holds it: the bound of that is the SDK's).
 */
import { MAX_MESSAGE_BYTES } from "./message-lines.js";

export class ResponseTooLargeError extends Error {}

export function boundedFetch(maxBytes = MAX_MESSAGE_BYTES): (url: string | URL, init?: RequestInit) => Promise<Response> {
	return async (url, init) => {
		const response = await fetch(url, init);
		const method = (init?.method ?? "GET").toUpperCase();
		if (method === "GET" || response.body === null) return response;
		const declared = Number(response.headers.get("content-length") ?? "NaN");
		const tooLarge = () => new ResponseTooLargeError(`the server answered with more than ${maxBytes / 1024 / 1024} MiB (the bound of one answer)`);
		if (declared > maxBytes) {
			await response.body.cancel().catch(() => undefined);
			throw tooLarge();
		}
		let seen = 0;
		const counted = response.body.pipeThrough(
			new TransformStream<Uint8Array, Uint8Array>({
				transform(chunk, controller) {
					seen += chunk.byteLength;
					if (seen > maxBytes) controller.error(tooLarge());
					else controller.enqueue(chunk);
				},
			}),
		);
		return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
	};
}
