/**
 * POST /rpc: one JSON command answered with one JSON response, or JSONL (one command per line) answered
 * line by line in order. No event stream here; commands about events need /ws.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Dispatcher } from "../protocol/dispatch.js";
import { errorResponse, PARSE_COMMAND } from "../protocol/envelope.js";
import { NO_EVENT_STREAM } from "../protocol/subscriptions.js";
import { MAX_RPC_BODY_BYTES, MAX_RPC_LINES } from "./limits.js";
import { sendJson, sendText } from "./http-reply.js";

const JSON_TYPES = ["application/json", "application/x-ndjson", "application/jsonl", "application/x-jsonlines"];

export async function serveRpc(request: IncomingMessage, response: ServerResponse, dispatcher: Dispatcher): Promise<void> {
	if (request.method !== "POST") {
		response.setHeader("Allow", "POST");
		return sendText(response, 405, "method not allowed: POST one JSON command (or JSONL) to /rpc");
	}
	const mediaType = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
	if (!JSON_TYPES.includes(mediaType)) {
		return sendText(response, 415, "content-type must be application/json (or application/x-ndjson for JSONL)");
	}
	const declared = Number(request.headers["content-length"] ?? Number.NaN);
	if (declared > MAX_RPC_BODY_BYTES) return sendText(response, 413, `request body too large (limit ${MAX_RPC_BODY_BYTES} bytes)`);
	const body = await readBody(request, MAX_RPC_BODY_BYTES);
	if (body === undefined) return sendText(response, 413, `request body too large (limit ${MAX_RPC_BODY_BYTES} bytes)`);

	// application/json is one JSON document (pretty-printed or not); JSONL is one command per line.
	if (mediaType === "application/json") {
		if (body.trim() === "") return sendJson(response, 400, JSON.stringify(errorResponse(PARSE_COMMAND, undefined, "Empty body: send one JSON command", "parse_error")));
		const reply = await dispatcher.dispatchText(body, NO_EVENT_STREAM);
		return sendJson(response, reply.success ? 200 : 400, JSON.stringify(reply));
	}
	const lines = body.split("\n").map((l) => l.replace(/\r$/, "")).filter((l) => l.trim().length > 0);
	if (lines.length === 0) {
		return sendJson(response, 400, JSON.stringify(errorResponse(PARSE_COMMAND, undefined, "Empty body: send one JSON command per line", "parse_error")));
	}
	if (lines.length > MAX_RPC_LINES) return sendText(response, 413, `too many JSONL lines (limit ${MAX_RPC_LINES})`);
	response.writeHead(200, { "Content-Type": "application/x-ndjson; charset=utf-8", "Cache-Control": "no-store" });
	for (const line of lines) {
		const reply = await dispatcher.dispatchText(line, NO_EVENT_STREAM);
		response.write(`${JSON.stringify(reply)}\n`);
	}
	response.end();
}

/** The body as text, or undefined once it exceeds `limit` (the rest is drained, not buffered). */
function readBody(request: IncomingMessage, limit: number): Promise<string | undefined> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		let tooLarge = false;
		request.on("data", (chunk: Buffer) => {
			size += chunk.length;
			if (size > limit) tooLarge = true;
			if (!tooLarge) chunks.push(chunk);
		});
		request.on("end", () => resolve(tooLarge ? undefined : Buffer.concat(chunks).toString("utf8")));
		request.on("error", reject);
	});
}
