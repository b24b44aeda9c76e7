/** Plain-text HTTP replies for rejections (a status and a short reason, never a secret), and JSON answers. */
import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { STATUS_CODES } from "node:http";

export function sendText(response: ServerResponse, status: number, reason: string, headers: OutgoingHttpHeaders = {}): void {
	response.writeHead(status, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", ...headers });
	response.end(`${reason}\n`);
}

export function sendJson(response: ServerResponse, status: number, json: string): void {
	response.writeHead(status, { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" });
	response.end(json);
}

/**
 * Answers on a raw socket (a refused WebSocket upgrade, a request node could not parse, a header deadline)
 * with a real HTTP response, then closes the connection once the response is written, so a client that
 * never closes its side cannot keep it open.
 */
export function replyOnSocket(socket: Duplex, status: number, reason: string, headers: Record<string, string> = {}): void {
	if (!socket.writable) {
		socket.destroy();
		return;
	}
	const body = `${reason}\n`;
	const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("");
	socket.end(
		`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}\r\n` +
			"Content-Type: text/plain; charset=utf-8\r\n" +
			`Content-Length: ${Buffer.byteLength(body)}\r\n` +
			extra +
			"Connection: close\r\n\r\n" +
			body,
		() => socket.destroy(),
	);
}
