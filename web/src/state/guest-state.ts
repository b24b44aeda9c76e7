/**
 * The guest view's logic, apart from rendering: the link read from the page's address (its fragment removed at
 * once), the encrypted connection to the room (web/src/collab/guest-connection.ts), the shared session's
 * transcript built from the snapshot and the live events exactly as the host page builds its own, and a control
 * guest's prompt, steer and abort. Views subscribe and re-render at most once per animation frame.
 */
import type { SkiffEvent } from "../../../src/client/index.js";
import type { CollabRole, CollabSessionView } from "../../../src/shared/collab-wire.js";
import { GuestConnection, type GuestSnapshot, type GuestState } from "../collab/guest-connection";
import { takeGuestLink } from "../collab/guest-link";
import { type Announcement, PageStore, type Toast } from "./page-store";
import { sessionTitle } from "./session-title";
import { contentText, Transcript } from "./transcript";

export interface GuestViewState {
	/** Why the link cannot be used at all (no key, a damaged one): nothing was sent anywhere. */
	linkError: string | undefined;
	/** The connection's state (absent with a bad link). */
	connection: GuestState | undefined;
	/** What the snapshot says of the shared session (name, model, …), kept current by its events. */
	session: CollabSessionView | undefined;
	/** Oldest messages the host left out of the snapshot (it fits one frame). */
	omittedMessages: number;
	toasts: Toast[];
	announcement: Announcement | undefined;
}

export class GuestSession extends PageStore<GuestViewState> {
	/** The shared session's transcript, once the first snapshot is in. */
	transcript: Transcript | undefined;
	private readonly connection: GuestConnection | undefined;

	constructor() {
		super();
		const link = takeGuestLink(location, history);
		this.connection = link.ok ? new GuestConnection(link.link) : undefined;
		this.state = {
			linkError: link.ok ? undefined : link.error,
			connection: this.connection?.state,
			session: undefined,
			omittedMessages: 0,
			toasts: [],
			announcement: undefined,
		};
		if (!this.connection) return;
		this.connection.onState((connection) => this.onState(connection));
		this.connection.onSnapshot((snapshot) => this.onSnapshot(snapshot));
		this.connection.onEvent((event) => this.onEvent(event));
	}

	/** The link's role, when the link could be read. */
	get role(): CollabRole | undefined {
		return this.state.connection?.role;
	}

	start(): void {
		this.connection?.start();
	}

	/** The shared session's title by the page's one rule (name, else its first message, else "Shared session"). */
	title(): string {
		const first = this.transcript?.messages.find((m) => m.role === "user");
		const title = sessionTitle(this.state.session?.name, first ? contentText(first.content) : undefined);
		return title === "New session" && !first ? "Shared session" : title;
	}

	/** Enter or Send: a prompt while idle, a steer during a run; resolves whether the host took it. */
	async send(text: string): Promise<boolean> {
		const message = text.trim();
		if (!message || !this.connection || !this.transcript) return false;
		const type = this.transcript.running ? "steer" : "prompt";
		try {
			const response = await (type === "steer" ? this.connection.steer(message) : this.connection.prompt(message));
			if (response.success) return true;
			this.toast(`${type} refused: ${response.error ?? "unknown error"}`);
		} catch (error) {
			this.toast(`${type} failed: ${(error as Error).message}`);
		}
		return false;
	}

	abort(): void {
		if (!this.connection || !this.transcript?.running) return;
		this.connection.abort().then(
			(response) => response.success || this.toast(`abort refused: ${response.error ?? "unknown error"}`),
			(error: Error) => this.toast(`abort failed: ${error.message}`),
		);
	}

	/** Leaves the room for good (when the page goes away). */
	leave(): void {
		this.connection?.leave();
	}

	private onState(connection: GuestState): void {
		const before = this.state.connection?.status;
		this.update({ connection });
		if (before === connection.status) return;
		if (connection.status === "connected") this.announce(before === "reconnecting" ? "Connected again." : `Joined the shared session${connection.role === "view" ? ", view only" : ""}.`);
		else if (connection.detail) this.announce(connection.detail);
	}

	/** A snapshot replaces what is shown (the first one, and after a compaction or a reload on the host). */
	private onSnapshot(snapshot: GuestSnapshot): void {
		const transcript = new Transcript(snapshot.sessionId);
		transcript.load({ messages: snapshot.messages, streaming: snapshot.streaming, seq: snapshot.seq, running: snapshot.session.isStreaming });
		this.transcript = transcript;
		this.update({ session: snapshot.session, omittedMessages: snapshot.omittedMessages });
	}

	private onEvent(event: SkiffEvent): void {
		const transcript = this.transcript;
		if (!transcript || !transcript.apply(event)) return;
		const session = this.state.session;
		if (session) {
			if (event.type === "session_info_changed") this.update({ session: { ...session, name: event.name } });
			else if (event.type === "model_changed") this.update({ session: { ...session, model: event.model } });
			else if (event.type === "thinking_level_changed") this.update({ session: { ...session, thinkingLevel: event.level } });
		}
		if (event.type === "message_end" && event.message.role === "assistant") {
			const { stopReason, errorMessage } = event.message;
			this.announce(stopReason === "error" ? `The run failed: ${errorMessage ?? "unknown error"}` : stopReason === "aborted" ? "Stopped." : "The agent replied.");
		}
		if (event.type === "run_stopped") this.announce(`The run was stopped: ${event.message}`);
		this.schedule();
	}
}
