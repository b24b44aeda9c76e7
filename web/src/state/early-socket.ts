/**
 * The socket web/index.html opens as the page is read (an inline script that then removes itself), before the
 * script is parsed, compiled and run: the client takes it over for its first connection when it is to the same
 * place with the same token, so the handshake overlaps the script's start instead of following it (docs/web.md,
 * Connection). What the socket said meanwhile (opened, closed, a message) is told to the client's handlers once
 * it has set them.
 */
import type { WebSocketConstructor } from "../../../src/client/index.js";

interface EarlySocket {
	socket: WebSocket;
	protocols: string[];
	events: Event[];
}

/** A WebSocket class for the client: the early socket the first time it fits, else a new one. */
export function withEarlySocket(): WebSocketConstructor {
	return function (url: string, protocols: string[] = []) {
		const holder = window as { skiffSocket?: EarlySocket };
		const early = holder.skiffSocket;
		holder.skiffSocket = undefined;
		if (early?.socket.url === new URL(url).href && early.protocols.join() === protocols.join()) {
			const { socket, events } = early;
			// The client sets its handlers right after this returns, in the same task: they hear what came before.
			queueMicrotask(() => {
				for (const event of events) (socket[`on${event.type}` as "onopen"] as ((event: Event) => void) | null)?.(event);
			});
			return socket;
		}
		early?.socket.close();
		return new WebSocket(url, protocols);
	} as unknown as WebSocketConstructor;
}
