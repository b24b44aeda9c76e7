/**
 * Deleting sessions and the trash (`<agent-dir>/trash/sessions`): a deletion moves a session there, asked to
 * confirm by the panel; the Trash view lists what is there, each restorable. Any client's deletion or restore
 * (`session_list_changed`) refreshes the lists here.
 */
import type { SessionSummary, TrashedSession } from "../../../src/client/index.js";
import { coalesce } from "./coalesce";
import { failureText, type PanelContext, runCommand } from "./panel-context";

export class SessionTrash {
	/** The trash's sessions once read (read when the Trash view opens, again after each change). */
	items: { sessions: TrashedSession[] } | { error: string } | undefined;
	/** Sessions this page is deleting: their unloading is no news to it. */
	private readonly deleting = new Set<string>();

	constructor(
		private readonly context: PanelContext,
		private readonly lists: {
			/** Reads the session lists again. */
			refresh(): void;
			/** Shows another session if `sessionId` is the one shown (it is gone). */
			leave(sessionId: string): Promise<void>;
		},
	) {
		context.client.on("session_list_changed", () => {
			lists.refresh();
			if (this.items) void this.load();
		});
		// Deleted by another client while shown here: the page moves on rather than show a session that is gone.
		context.client.on("session_unloaded", (event) => {
			if (event.reason !== "deleted" || event.sessionId !== context.sessionId() || this.deleting.has(event.sessionId)) return;
			context.toast("The session shown was moved to the trash elsewhere: showing the service's first session.");
			void lists.leave(event.sessionId);
		});
	}

	/** Reads the trash (again). */
	readonly load = coalesce(async () => {
		try {
			this.items = { sessions: (await this.context.client.call("session_trash_list", {})).sessions };
		} catch (error) {
			this.items = { error: failureText(error) };
		}
		this.context.changed();
	});

	/** Moves a session to the trash (the panel has asked); resolves whether it went. */
	async remove(row: Pick<SessionSummary, "sessionId">, title: string): Promise<boolean> {
		this.deleting.add(row.sessionId);
		const done = await runCommand(this.context, "Delete", "session_delete", { confirm: true }, row.sessionId);
		this.deleting.delete(row.sessionId);
		if (!done) return false;
		this.context.announce(`“${title}” was moved to the trash.`);
		await this.lists.leave(row.sessionId);
		return true;
	}

	async restore(item: TrashedSession, title: string): Promise<void> {
		if (await runCommand(this.context, "Restore", "session_restore", { trashId: item.trashId }, undefined)) this.context.announce(`“${title}” was restored.`);
	}
}
