/**
 * The Share dialog's state: the collaboration rooms of the service (`collab_status`), kept current live by
 * `collab_updated` (a guest joined or left, a room started or stopped, from this page or another client), and
 * the commands that start and stop a room for the current session. Never polls.
 */
import type { CommandResult, SkiffEvent } from "../../../src/client/index.js";
import { failureText, type PanelContext } from "./panel-context.js";

/** A room as the page shows it: its links and who is connected. */
export type SharedRoom = CommandResult<"collab_status">["rooms"][number];

export class CollabState {
	/** Every open room of the service, oldest first. */
	rooms: SharedRoom[] = [];
	loaded = false;
	/** Waiting for collab_start or collab_stop (their buttons are disabled meanwhile). */
	busy = false;
	/** Why starting or stopping failed, shown in the dialog (e.g. a wildcard bind that needs an origin). */
	error: string | undefined;
	/** Bumped on every change. */
	version = 0;

	constructor(private readonly context: PanelContext) {
		context.client.onEvent((event) => this.onEvent(event));
	}

	/** The rooms sharing the current session. */
	current(): SharedRoom[] {
		const sessionId = this.context.sessionId();
		return this.rooms.filter((r) => r.sessionId === sessionId);
	}

	/** Guests connected to the current session's rooms, by role. */
	guests(): { control: number; view: number } {
		return this.current().reduce((n, r) => ({ control: n.control + r.controlGuests, view: n.view + r.viewGuests }), { control: 0, view: 0 });
	}

	/** Reads every room (their links and guests) again. Quiet: without it the page only shows no room. */
	async refresh(): Promise<void> {
		try {
			const { rooms } = await this.context.client.call("collab_status", {});
			this.rooms = rooms;
			this.loaded = true;
			this.touch();
		} catch {
			// The Share dialog says what went wrong when it is used; a failed read only leaves the list as it was.
		}
	}

	/** Starts a room for the current session; resolves whether it did. */
	async start(): Promise<boolean> {
		return this.run(async () => {
			await this.context.client.call("collab_start", {}, { sessionId: this.context.sessionId() });
			await this.refresh(); // the new room with its counts (its collab_updated may come first or later)
		});
	}

	/** Stops a room: its guests are told the host stopped sharing, and its links stop working. */
	async stop(roomId: string): Promise<boolean> {
		return this.run(async () => {
			await this.context.client.call("collab_stop", { roomId });
			this.remove(roomId);
		});
	}

	dismissError(): void {
		this.error = undefined;
		this.touch();
	}

	private async run(action: () => Promise<void>): Promise<boolean> {
		this.busy = true;
		this.error = undefined;
		this.touch(true); // the click's busy state, rendered with the click
		try {
			await action();
			return true;
		} catch (error) {
			this.error = failureText(error);
			return false;
		} finally {
			this.busy = false;
			this.touch();
		}
	}

	private onEvent(event: SkiffEvent): void {
		if (event.type !== "collab_updated") return;
		if (event.stopped) return this.remove(event.roomId);
		const known = this.rooms.some((r) => r.roomId === event.roomId);
		// A room started elsewhere (another client, the API): its links come only with collab_status.
		if (!known) return void this.refresh();
		this.rooms = this.rooms.map((r) => (r.roomId === event.roomId ? { ...r, controlGuests: event.controlGuests, viewGuests: event.viewGuests } : r));
		this.touch();
	}

	private remove(roomId: string): void {
		this.rooms = this.rooms.filter((r) => r.roomId !== roomId);
		this.touch();
	}

	private touch(now?: boolean): void {
		this.version++;
		this.context.changed(now);
	}
}
