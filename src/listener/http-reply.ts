/** Plain-text HTTP replies for rejections: a status and a short reason, never a secret. */
import type { ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { STATUS_CODES } from "node:http";

export function sendText(response: ServerResponse, status: number, reason: string): void {
	response.writeHead(status, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" });
	response.end(`${reason}\n`);
}

/** Refuses a WebSocket upgrade with a real HTTP response before any upgrade happens. */
export function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
	const body = `${reason}\n`;
	socket.end(
		`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}\r\n` +
			"Content-Type: text/plain; charset=utf-8\r\n" +
			`Content-Length: ${Buffer.byteLength(body)}\r\n` +
			"Connection: close\r\n\r\n" +
			body,
	);
}
