/**
 * The /ws control socket: one JSON command per text frame in, responses and followed sessions' events out.
 * Commands of one socket run concurrently (responses carry ids); a socket that stops reading is closed
 * before its queue can grow without bound.
 */
import type { WebSocket } from "ws";
import type { Dispatcher } from "../protocol/dispatch.js";
import { errorResponse } from "../protocol/envelope.js";
import { MAX_CONCURRENT_COMMANDS, MAX_OUTBOUND_BUFFER_BYTES } from "./limits.js";

/** Close codes the server uses (RFC 6455). */
export const CLOSE_UNSUPPORTED_DATA = 1003;
export const CLOSE_POLICY_VIOLATION = 1008;
export const CLOSE_GOING_AWAY = 1001;

export function serveControlSocket(socket: WebSocket, dispatcher: Dispatcher): void {
	let inFlight = 0;
	const send = (json: string) => {
		if (socket.readyState !== socket.OPEN) return;
		if (socket.bufferedAmount > MAX_OUTBOUND_BUFFER_BYTES) {
			socket.close(CLOSE_POLICY_VIOLATION, "client is not reading messages");
			socket.terminate();
			return;
		}
		socket.send(json);
	};
	const subscriptions = dispatcher.eventClient(send);

	socket.on("message", (data, isBinary) => {
		if (isBinary) {
			socket.close(CLOSE_UNSUPPORTED_DATA, "binary frames are not supported: send one JSON command per text frame");
			return;
		}
		if (inFlight >= MAX_CONCURRENT_COMMANDS) {
			send(JSON.stringify(errorResponse(commandType(data), undefined, `Too many commands in flight on this socket (limit ${MAX_CONCURRENT_COMMANDS})`)));
			return;
		}
		inFlight++;
		dispatcher
			.dispatchText(data.toString(), subscriptions)
			.then((response) => send(JSON.stringify(response)))
			.catch(() => undefined) // dispatch turns every failure into a response; this only guards send()
			.finally(() => inFlight--);
	});
	socket.on("close", () => subscriptions.close());
	socket.on("error", () => subscriptions.close());
}

/** Best-effort command name of a frame that is refused before parsing proper. */
function commandType(data: unknown): string {
	try {
		const value = JSON.parse(String(data)) as { type?: unknown };
		return typeof value.type === "string" ? value.type : "parse";
	} catch {
		return "parse";
	}
}
