/**
 * Stands between a page and the service on the page's WebSocket (Playwright's routeWebSocket) to make a race
 * happen on cue: events from a chosen one on, or the answers to a chosen command, wait until `release`, which
 * sends them in order. Everything else passes as it comes. The commands the page sends are listed by type; `drop`
 * closes the page's socket as a lost connection would (the page reconnects through the gate).
 */
import type { Page, WebSocketRoute } from "playwright-core";

interface Frame {
	type: string;
	command?: string;
}

export class SocketGate {
	/** From the first event this matches, that event and every later one wait (answers to commands pass). */
	holdEventsFrom: ((event: Frame) => boolean) | undefined;
	/** Answers to the commands this matches wait. */
	holdAnswersTo: ((command: string) => boolean) | undefined;
	/** The type of every command the page sent, in order. */
	readonly commands: string[] = [];
	private held: string[] = [];
	private holdingEvents = false;
	private page: WebSocketRoute | undefined;
	private server: ReturnType<WebSocketRoute["connectToServer"]> | undefined;

	/** Routes the page's WebSocket to the service through this gate; call before the page loads. */
	attach(page: Page): Promise<void> {
		return page.routeWebSocket(/\/ws(\?|$)/, (ws) => this.route(ws));
	}

	private route(ws: WebSocketRoute): void {
		const server = ws.connectToServer();
		this.page = ws;
		this.server = server;
		ws.onMessage((message) => {
			this.commands.push((JSON.parse(String(message)) as Frame).type);
			server.send(message);
		});
		server.onMessage((message) => {
			const frame = JSON.parse(String(message)) as Frame;
			const answer = frame.type === "response";
			if (!answer && !this.holdingEvents && this.holdEventsFrom?.(frame)) this.holdingEvents = true;
			if (answer ? this.holdAnswersTo?.(frame.command ?? "") : this.holdingEvents) this.held.push(String(message));
			else ws.send(message);
		});
	}

	/** Closes the page's socket as a lost connection would (what waits is dropped with it). */
	async drop(): Promise<void> {
		this.held = [];
		await this.server?.close();
		await this.page!.close({ code: 1011, reason: "dropped by the test" });
	}

	/** How many frames wait. */
	get holding(): number {
		return this.held.length;
	}

	/** Sends what waits, in order, and stops holding. */
	release(): void {
		this.holdEventsFrom = undefined;
		this.holdAnswersTo = undefined;
		this.holdingEvents = false;
		for (const message of this.held.splice(0)) this.page!.send(message);
	}
}
