/**
 * The client's Node entry (`skiff/client` under the "node" export condition): the same API, with the `ws`
 * package as the default WebSocket (Node 20 has none built in). Unlike a browser's, this socket can say why it
 * did not open: the HTTP status and reason of a refused upgrade (401: the token; 403: the origin; 429:
 * throttled), or the network error (the service is not reachable).
 */
import WebSocket from "ws";
import { type ConnectionRefusal, describeHandshake, describeNetworkError } from "./refusal.js";
import { SkiffClient as PortableClient, type SkiffClientOptions } from "./skiff-client.js";

export * from "./index.js";

/** Bytes of a refusal's body read: the service's reason is one short line. */
const MAX_REFUSAL_BODY_CHARS = 1024;
/** How long a refusal's body may take before the socket is closed without it. */
const REFUSAL_BODY_WAIT_MS = 2000;

/** `ws`, explaining a failure to open in `refusal` (read by the client when the socket closes before opening). */
class NodeWebSocket extends WebSocket {
	refusal: ConnectionRefusal | undefined;

	constructor(url: string, protocols?: string | string[]) {
		super(url, protocols);
		const tokenOffered = [protocols ?? []].flat().some((p) => p.startsWith("skiff-auth."));
		this.once("unexpected-response", (_request, response) => {
			let body = "";
			const give = () => {
				clearTimeout(deadline);
				this.refusal = describeHandshake(response.statusCode ?? 0, body, tokenOffered);
				this.terminate(); // closes before open
			};
			const deadline = setTimeout(give, REFUSAL_BODY_WAIT_MS).unref();
			response.setEncoding("utf8");
			response.on("data", (chunk: string) => (body += chunk.slice(0, Math.max(0, MAX_REFUSAL_BODY_CHARS - body.length))));
			response.once("end", give);
			response.once("error", give);
		});
		this.on("error", (error: Error & { code?: unknown }) => void (this.refusal ??= describeNetworkError(url, error)));
	}
}

/** SkiffClient with `ws` as the default WebSocket. */
export class SkiffClient extends PortableClient {
	constructor(options: SkiffClientOptions) {
		super({ ...options, WebSocket: options.WebSocket ?? NodeWebSocket });
	}
}
