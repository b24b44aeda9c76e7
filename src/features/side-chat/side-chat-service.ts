/**
 * Side chats of every loaded session: named tabs, each a side agent forked from the session's conversation
 * (AgentHandle.openSideChat). Their runs stream on the session's own event stream, shaped like the main
 * transcript's events (deltas only), as `side_chat_event`; `side_chat_updated` says when the tabs changed.
 * Nothing is recorded: a session's tabs are disposed when it unloads, and gone after a restart.
 */
import type { AgentHandle, RuntimeEvent, SessionObserver, SideChatHandle } from "../../agent/types.js";
import type { Mergeable } from "../../protocol/delta-run.js";
import { createEventShaper, type EventShaper } from "../../protocol/event-shape.js";
import { CodedError } from "../../shared/errors.js";
import { redactSecrets } from "../../shared/redact.js";
import { RUN_EVENT_TYPES } from "../../protocol/events/core-events.js";
import { sideChatEvent, sideChatUpdatedEvent } from "./events.js";
import { SIDE_CHAT_INSTRUCTIONS } from "./instructions.js";
import { createPeekMainTool, forkPointOf } from "./peek-main.js";
import { MAX_SIDE_CHATS, SIDE_CHAT_NAME_PATTERN, type SideChatTab } from "./schemas.js";

/** A main session as side chats see it: its handle may be replaced (reloaded from disk) while it stays loaded. */
export interface MainSession {
	readonly id: string;
	readonly handle: AgentHandle;
}

export interface SideChatServiceOptions {
	/** The runtime's session signals: a session's tabs are disposed when it unloads. */
	observe(observer: SessionObserver): () => void;
	/** Publishes an event on a session's event stream; a tab's streaming deltas come with how they merge. */
	publish(sessionId: string, event: RuntimeEvent, merge?: Mergeable): void;
	/** The clock (epoch ms) for `created`; injected by tests. */
	now?: () => number;
}

/** One tab; `side` is undefined while it opens. */
interface Tab {
	readonly name: string;
	readonly created: string;
	/** The tab's stream on the session's hub: its deltas merge among themselves, wrapped as the tab's events. */
	readonly scope: string;
	readonly wrap: (update: RuntimeEvent) => RuntimeEvent;
	side?: SideChatHandle;
	unsubscribe?: () => void;
}

const NAME = new RegExp(SIDE_CHAT_NAME_PATTERN);
/** The run events a tab forwards (others of pi's, which a side chat never causes, are dropped). */
const FORWARDED = new Set<string>(RUN_EVENT_TYPES);

export class SideChatService {
	/** Tabs by name, per session id; a session without tabs has no entry. */
	private readonly sessions = new Map<string, Map<string, Tab>>();
	private readonly stopObserving: () => void;

	constructor(private readonly options: SideChatServiceOptions) {
		this.stopObserving = options.observe((sessionId, signal) => {
			if (signal.kind === "unloaded") this.drop(sessionId);
		});
	}

	/**
	 * Opens a tab forked from the session's conversation as it is now. The name is taken (and counted against the
	 * limit) at once, so two opens cannot both pass the checks; a failed open leaves nothing behind.
	 */
	async open(main: MainSession, name: string): Promise<SideChatTab> {
		if (!NAME.test(name)) {
			throw new CodedError("invalid_command", `Invalid side chat name ${JSON.stringify(name.slice(0, 40))}: use 1 to 32 letters, digits or underscores`);
		}
		let tabs = this.sessions.get(main.id);
		if (tabs?.has(name)) throw new CodedError("conflict", `A side chat named ${name} is already open in session ${main.id}`);
		if (tabs && tabs.size >= MAX_SIDE_CHATS) {
			throw new CodedError("limit", `Session ${main.id} already has ${MAX_SIDE_CHATS} side chats, the most it may hold: close one first (side_chat_close)`);
		}
		if (!tabs) this.sessions.set(main.id, (tabs = new Map()));
		const wrap = (update: RuntimeEvent): RuntimeEvent => ({ type: sideChatEvent.type, name, event: update });
		const tab: Tab = { name, created: new Date(this.options.now?.() ?? Date.now()).toISOString(), scope: `${sideChatEvent.type}\n${name}`, wrap };
		tabs.set(name, tab);
		const source = main.handle;
		const fork = forkPointOf(source.messages()); // the same moment openSideChat copies the conversation
		let side: SideChatHandle;
		try {
			side = await source.openSideChat({ tools: [createPeekMainTool(() => main.handle, fork)], instructions: SIDE_CHAT_INSTRUCTIONS });
		} catch (error) {
			this.remove(main.id, tab);
			if (error instanceof CodedError) throw error;
			throw new CodedError("failed", `Could not open side chat ${name}: ${redactSecrets(error instanceof Error ? error.message : String(error))}`);
		}
		if (this.sessions.get(main.id)?.get(name) !== tab) {
			side.dispose(); // closed, or its session unloaded, while it opened
			throw new CodedError("conflict", `Side chat ${name} was closed (or session ${main.id} unloaded) while it opened`);
		}
		tab.side = side;
		const shape = createEventShaper();
		tab.unsubscribe = side.subscribe((event) => this.forward(main.id, tab, shape, event));
		this.announce(main.id);
		return summary(tab, side);
	}

	/** The session's open tabs, oldest first (tabs still opening are left out). */
	list(sessionId: string): SideChatTab[] {
		const tabs = [...(this.sessions.get(sessionId)?.values() ?? [])];
		return tabs.flatMap((tab) => (tab.side ? [summary(tab, tab.side)] : []));
	}

	/** A tab's own messages and the reply it is streaming, if any. */
	transcript(sessionId: string, name: string): { messages: unknown[]; streaming?: unknown; running: boolean } {
		const side = this.ready(sessionId, name);
		const streaming = side.streamingMessage();
		return { messages: side.messages(), ...(streaming ? { streaming } : {}), running: side.isBusy };
	}

	/** Starts a run in the tab; resolves once the prompt is accepted. Refused (`busy`) while the tab runs. */
	async prompt(sessionId: string, name: string, message: string): Promise<void> {
		const side = this.ready(sessionId, name);
		if (side.isBusy) {
			throw new CodedError("busy", `Side chat ${name} is still answering: wait for its run to end (side_chat_event agent_end) or abort it (side_chat_abort)`);
		}
		await side.prompt(message);
	}

	/** Stops the tab's run, if any. */
	async abort(sessionId: string, name: string): Promise<void> {
		await this.ready(sessionId, name).abort();
	}

	/** Closes a tab (stopping its run); a tab still opening is abandoned. */
	close(sessionId: string, name: string): void {
		const tab = this.sessions.get(sessionId)?.get(name);
		if (!tab) throw unknownTab(sessionId, name);
		this.remove(sessionId, tab);
		this.announce(sessionId);
	}

	/** Disposes every tab and stops observing the runtime (shutdown). */
	dispose(): void {
		this.stopObserving();
		for (const sessionId of [...this.sessions.keys()]) this.drop(sessionId);
	}

	/** Disposes a session's tabs without a word: the session is gone, and its followers were told so. */
	private drop(sessionId: string): void {
		const tabs = this.sessions.get(sessionId);
		if (!tabs) return;
		this.sessions.delete(sessionId);
		for (const tab of tabs.values()) release(tab);
	}

	private remove(sessionId: string, tab: Tab): void {
		const tabs = this.sessions.get(sessionId);
		if (tabs?.get(tab.name) !== tab) return;
		tabs.delete(tab.name);
		if (tabs.size === 0) this.sessions.delete(sessionId);
		release(tab);
	}

	private ready(sessionId: string, name: string): SideChatHandle {
		const tab = this.sessions.get(sessionId)?.get(name);
		if (!tab) throw unknownTab(sessionId, name);
		if (!tab.side) throw new CodedError("busy", `Side chat ${name} is still opening: try again when side_chat_new has answered`);
		return tab.side;
	}

	private forward(sessionId: string, tab: Tab, shape: EventShaper, event: RuntimeEvent): void {
		if (!FORWARDED.has(event.type)) return;
		const shaped = shape(event);
		// A tab's deltas of one turn go out as one event, as the main transcript's do (delta-run.ts).
		if (shaped) this.options.publish(sessionId, tab.wrap(shaped), { update: shaped, scope: tab.scope, wrap: tab.wrap });
		if (event.type === "agent_start" || event.type === "agent_end") this.announce(sessionId);
	}

	private announce(sessionId: string): void {
		this.options.publish(sessionId, { type: sideChatUpdatedEvent.type, tabs: this.list(sessionId) });
	}
}

function summary(tab: Tab, side: SideChatHandle): SideChatTab {
	return {
		name: tab.name,
		streaming: side.isBusy,
		messageCount: side.messages().length,
		created: tab.created,
		...(side.model ? { model: side.model } : {}),
		thinkingLevel: side.thinkingLevel,
	};
}

function release(tab: Tab): void {
	tab.unsubscribe?.();
	tab.side?.dispose();
}

function unknownTab(sessionId: string, name: string): CodedError {
	return new CodedError("not_found", `No side chat named ${name} in session ${sessionId}: side_chat_list shows the open tabs`);
}
