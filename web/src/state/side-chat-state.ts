/**
 * The side chats of the sessions the page follows: each session's tabs (`side_chat_list`, then
 * `side_chat_updated`), and a transcript per tab that is open in the panel, loaded once with
 * `side_chat_messages` and then built from `side_chat_event`s with the main transcript's own code (the wrapped
 * event is exactly the main transcript's). Which tab is shown stays here too, so it survives switching panels;
 * what was typed in a tab is kept in sessionStorage, so it survives a reload as the tabs do. Tabs live in the service's memory only; the panel says so.
 */
import { type SideChatTab, type SkiffEvent, SkiffCommandError } from "../../../src/client/index.js";
import { failureText, type PanelContext, runCommand, SessionSnapshots, type Snapshot } from "./panel-context";
import { Drafts } from "./drafts";
import { Transcript } from "./transcript";

/** What a tab may be called (as the service checks it). */
export const SIDE_CHAT_NAME = /^[A-Za-z0-9_]{1,32}$/;
/** Until the service's list says otherwise. */
const DEFAULT_MAX_TABS = 8;
/** What the panel says of the tabs' lifetime (the service's longer note is its tooltip). */
export const EPHEMERAL_NOTE = "Not saved: side chats live in memory only and are lost when the session unloads or the service restarts.";

export interface SideChatList {
	tabs: SideChatTab[];
	/** The service's sentence on what happens to the tabs (shown by the panel). */
	note: string;
	maxTabs: number;
}

/** A tab's transcript, and whether its load has answered. */
interface TabTranscript {
	transcript: Transcript;
	loaded: boolean;
}

export class SideChatState {
	private readonly lists: SessionSnapshots<SideChatList>;
	/** Transcripts by session id, then tab name. */
	private readonly transcripts = new Map<string, Map<string, TabTranscript>>();
	/** The tab shown, per session. */
	private readonly shown = new Map<string, string>();
	/** What is typed in each tab's box, by `session\ntab` (kept over a reload, as the tabs are). */
	private readonly drafts = new Drafts("skiff.side-chat-drafts");
	/** A refusal to show under a tab's box (e.g. a prompt while it answers), by `session\ntab`. */
	private readonly notices = new Map<string, string>();

	constructor(private readonly context: PanelContext) {
		this.lists = new SessionSnapshots(
			context,
			async (sessionId) => {
				const list = await context.client.call("side_chat_list", {}, { sessionId });
				return { tabs: list.tabs, note: list.note, maxTabs: list.maxTabs };
			},
			(sessionId) => this.transcripts.delete(sessionId),
		);
		context.client.on("side_chat_updated", (event) => {
			this.lists.update(event.sessionId, (list) => ({ ...list, tabs: event.tabs }));
			const open = new Set(event.tabs.map((t) => t.name));
			const tabs = this.transcripts.get(event.sessionId);
			for (const name of tabs?.keys() ?? []) {
				if (open.has(name)) continue;
				tabs!.delete(name);
				this.drafts.set(tabKey(event.sessionId, name), ""); // closed (here or by another page): its draft goes
			}
		});
		context.client.on("side_chat_event", (event) => {
			const tab = this.transcripts.get(event.sessionId)?.get(event.name);
			// The wrapped event is the main transcript's event of the same type, numbered by the wrapper.
			if (tab?.transcript.apply({ ...event.event, seq: event.seq, sessionId: event.sessionId } as SkiffEvent)) context.changed();
		});
	}

	/** The session's tabs (loading them the first time). */
	list(sessionId: string): Snapshot<SideChatList> {
		return this.lists.get(sessionId);
	}

	/** Loads the list again after it failed. */
	retry(sessionId: string): void {
		this.lists.forget(sessionId);
	}

	/** The tab shown: the one chosen last, else the newest. */
	shownTab(sessionId: string): SideChatTab | undefined {
		const tabs = this.lists.peek(sessionId)?.tabs ?? [];
		return tabs.find((t) => t.name === this.shown.get(sessionId)) ?? tabs.at(-1);
	}

	show(sessionId: string, name: string): void {
		this.shown.set(sessionId, name);
		this.context.changed();
	}

	/**
	 * A tab's transcript, loaded with `side_chat_messages` the first time it is asked for; events arriving
	 * meanwhile are held and applied after it (only those with a later seq).
	 */
	transcript(sessionId: string, name: string): { transcript: Transcript; loaded: boolean } {
		let tabs = this.transcripts.get(sessionId);
		if (!tabs) this.transcripts.set(sessionId, (tabs = new Map()));
		const known = tabs.get(name);
		if (known) return known;
		const tab: TabTranscript = { transcript: new Transcript(sessionId), loaded: false };
		tab.transcript.holdEvents();
		tabs.set(name, tab);
		void this.context.client.call("side_chat_messages", { name }, { sessionId }).then(
			(snapshot) => {
				tab.transcript.load({ messages: snapshot.messages, streaming: snapshot.streaming, seq: snapshot.seq, running: snapshot.running });
				tab.loaded = true;
				this.context.changed();
			},
			() => {
				if (this.transcripts.get(sessionId)?.get(name) === tab) this.transcripts.get(sessionId)!.delete(name); // asked again at the next render
			},
		);
		return tab;
	}

	/** Whether the tab is answering: by its transcript when loaded (exact to the event), else by the list. */
	streaming(sessionId: string, tab: SideChatTab): boolean {
		const known = this.transcripts.get(sessionId)?.get(tab.name);
		return known?.loaded ? known.transcript.running : tab.streaming;
	}

	/** A name for a new tab that is free: `btw`, `btw_2`, ... */
	suggestName(sessionId: string): string {
		const taken = new Set(this.lists.peek(sessionId)?.tabs.map((t) => t.name));
		if (!taken.has("btw")) return "btw";
		let n = 2;
		while (taken.has(`btw_${n}`)) n++;
		return `btw_${n}`;
	}

	maxTabs(sessionId: string): number {
		return this.lists.peek(sessionId)?.maxTabs ?? DEFAULT_MAX_TABS;
	}

	/** Opens a tab and shows it; resolves undefined, or why it could not be opened (shown by the form). */
	async open(sessionId: string, name: string): Promise<string | undefined> {
		try {
			const tab = await this.context.client.call("side_chat_new", { name }, { sessionId });
			// The list follows from side_chat_updated; until then the tab is added here, so it can be shown at once.
			this.lists.update(sessionId, (list) => (list.tabs.some((t) => t.name === tab.name) ? list : { ...list, tabs: [...list.tabs, tab] }));
			this.show(sessionId, tab.name);
			return undefined;
		} catch (error) {
			return failureText(error);
		}
	}

	/**
	 * Sends a message to a tab; resolves whether it was accepted. A tab that is still answering refuses it: the
	 * refusal is shown under the tab's box (the text stays in it).
	 */
	async prompt(sessionId: string, tab: SideChatTab, message: string): Promise<boolean> {
		const key = tabKey(sessionId, tab.name);
		if (this.streaming(sessionId, tab)) {
			this.setNotice(key, busyText(tab.name));
			return false;
		}
		this.setNotice(key, undefined);
		try {
			await this.context.client.call("side_chat_prompt", { name: tab.name, message }, { sessionId });
			return true;
		} catch (error) {
			this.setNotice(key, error instanceof SkiffCommandError && error.code === "busy" ? busyText(tab.name) : `Not sent: ${failureText(error)}`);
			return false;
		}
	}

	async abort(sessionId: string, name: string): Promise<void> {
		await runCommand(this.context, `Stopping side chat ${name}`, "side_chat_abort", { name }, sessionId);
	}

	async close(sessionId: string, name: string): Promise<void> {
		// A tab already gone (closed by another page) counts as closed.
		let gone = false;
		const notFound = (error: unknown) => (gone = error instanceof SkiffCommandError && error.code === "not_found");
		const closed = await runCommand(this.context, `Closing side chat ${name}`, "side_chat_close", { name }, sessionId, notFound);
		if (!closed && !gone) return;
		this.lists.update(sessionId, (list) => ({ ...list, tabs: list.tabs.filter((t) => t.name !== name) }));
		this.transcripts.get(sessionId)?.delete(name);
		this.drafts.set(tabKey(sessionId, name), "");
		this.notices.delete(tabKey(sessionId, name));
	}

	draft(sessionId: string, name: string): string {
		return this.drafts.get(tabKey(sessionId, name));
	}

	saveDraft(sessionId: string, name: string, text: string): void {
		this.drafts.set(tabKey(sessionId, name), text);
	}

	notice(sessionId: string, name: string): string | undefined {
		return this.notices.get(tabKey(sessionId, name));
	}

	dismissNotice(sessionId: string, name: string): void {
		this.setNotice(tabKey(sessionId, name), undefined);
	}

	private setNotice(key: string, text: string | undefined): void {
		if (text === undefined) this.notices.delete(key);
		else this.notices.set(key, text);
		this.context.changed();
	}
}

function tabKey(sessionId: string, name: string): string {
	return `${sessionId}\n${name}`;
}

function busyText(name: string): string {
	return `${name} is still answering: wait for its reply, or stop it, then send again.`;
}
