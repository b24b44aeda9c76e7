/**
 * The page's logic, apart from any rendering: the connection (a SkiffClient), binding to a session after every
 * (re)connect, the transcripts of followed sessions, per-session drafts, and the commands behind every control.
 * Views subscribe and re-render at most once per animation frame.
 */
import {
	type CommandName,
	type CommandParams,
	type CommandResult,
	type ConnectionStatus,
	type MemoryView,
	type ModelInfo,
	type SessionState,
	type SessionSummary,
	SkiffClient,
	SkiffCommandError,
	type SkiffEvent,
	type StatusChange,
	type ThinkingLevel,
} from "../../../src/client/index.js";
import { type Attachment, tooMuch, wireImage } from "./attachments";
import { coalesce } from "./coalesce";
import { CollabState } from "./collab-state";
import { Completions } from "./completions";
import { FilesState } from "./files-state";
import { splitMentions, withMentions } from "./mentions";
import { BoxHandover } from "./box-handover";
import { Drafts } from "./drafts";
import { withEarlySocket } from "./early-socket";
import { type Announcement, PageStore, type Toast } from "./page-store";
import { GoalState } from "./goal-state";
import { JobsState } from "./jobs-state";
import { PersonasState } from "./personas-state";
import { failureText, type PanelContext } from "./panel-context";
import { PanelNews } from "./panel-news";
import { RunWatch } from "./run-watch";
import { MaintenanceState } from "./maintenance-state";
import { McpState } from "./mcp-state";
import { WorkflowsState } from "./workflows-state";
import { SessionLive } from "./session-live";
import { SessionSearch } from "./session-search";
import { sessionTitle } from "./session-title";
import { SessionTrash } from "./session-trash";
import { SettingsState } from "./settings-state";
import { type SetupPaths, setupPathsFrom } from "./setup-help";
import { SideChatState } from "./side-chat-state";
import { TodoState } from "./todo-state";
import { ChangesState } from "./changes-state";
import { contentText, Transcript } from "./transcript";
import { TreeState } from "./tree-state";

export type { Announcement, Toast };

export interface ViewState {
	status: ConnectionStatus;
	/** What the connection bar says (absent while connected). */
	statusDetail: string | undefined;
	/** While reconnecting: when the next attempt starts (epoch ms), for the bar's countdown. */
	retryAt: number | undefined;
	/**
	 * The first connection was refused before it opened. The page was just served by this service, so it runs:
	 * it wants a token (a browser cannot see the HTTP status, see docs/web.md).
	 */
	tokenNeeded: boolean;
	/** ... and a token was offered: it was refused. */
	tokenRefused: boolean;
	/** Bound to a session after the latest connect: controls are active. */
	ready: boolean;
	sessionId: string | undefined;
	session: SessionState | undefined;
	models: ModelInfo[];
	thinkingLevels: ThinkingLevel[];
	sessions: { project: SessionSummary[]; all: SessionSummary[] };
	toasts: Toast[];
	hasToken: boolean;
	memory: MemoryView | undefined;
	/** Where models are configured, once a prompt failed for want of one (the service's own paths). */
	setup: SetupPaths | undefined;
	/** How the service was started (`npm start`, `skiff`…), for the setup help's example (get_available_models). */
	startCommand: string | undefined;
	/** Bumped whenever the page itself changes a draft (a fork's text, returned queued messages). */
	draftVersion: number;
	/** Another session is being opened (switched to, started, forked): nothing is sent until it shows. */
	opening: boolean;
	/** A note over the composer, per session (e.g. queued text a stopped run gave back). */
	notes: Record<string, string>;
	announcement: Announcement | undefined;
}

/** Said at the composer when a prompt is refused for want of a model (the setup card above says how to add one). */
const NO_MODEL_NOTE = "Not sent: no model is set up yet. Add one as the card above says, then send again.";

/**
 * Messages asked for first when a session is opened here: its newest, painted before the rest of a long
 * transcript arrives (10,000 messages are about 2.7 MB to serialize, send and parse).
 */
const FIRST_MESSAGES = 50;

/** What a bind arrives at: the session, its state, and the model lists on their way. */
interface Bound {
	sessionId: string;
	state: SessionState;
	lists: Promise<[CommandResult<"get_available_models">, CommandResult<"get_available_thinking_levels">]>;
}

const TOKEN_KEY = "skiff.token";
const SESSION_KEY = "skiff.session";

export class Controller extends PageStore<ViewState> {
	/**
	 * The panels' states, each in its own file (web/src/state/<panel>-state.ts), all made from one PanelContext
	 * and following their own events through the client.
	 */
	readonly tree: TreeState;
	readonly settings: SettingsState;
	readonly maintenance: MaintenanceState;
	readonly mcp: McpState;
	readonly sideChat: SideChatState;
	readonly todo: TodoState;
	readonly changes: ChangesState;
	readonly goal: GoalState;
	/** What panels have that the user has not seen (the rail's badges). */
	readonly news: PanelNews;
	readonly jobs: JobsState;
	readonly personas: PersonasState;
	readonly workflows: WorkflowsState;
	/** The Share dialog's rooms. */
	readonly collab: CollabState;
	/** Runs that ended, failed or need the user in any followed session (the tab's title, notifications). */
	readonly runs: RunWatch;
	readonly files: FilesState;
	/** What the composer offers after `/` and `@`. */
	readonly completions: Completions;
	/** The session list's live states, its search and the trash. */
	readonly live: SessionLive;
	readonly search: SessionSearch;
	/** The Ctrl+K switcher's search of message text (a few hits: it lists them under the titles that match). */
	readonly findText: SessionSearch;
	readonly trash: SessionTrash;
	private readonly transcripts = new Map<string, Transcript>();
	/** Sessions whose transcript must be reloaded at the next bind: their missed events could not be replayed. */
	private readonly stale = new Set<string>();
	private readonly client: SkiffClient;
	private readonly drafts = new Drafts();
	private readonly attached = new Map<string, Attachment[]>();
	private readonly handover = new BoxHandover(this.drafts);
	/** The connection was lost since it last worked: its return is announced. */
	private lost = false;
	/** The toast saying the connection was lost: it goes once the page is bound again. */
	private connectionToast: number | undefined;
	/** Waiting for the first bind to end (afterFirstBind). */
	private firstBindOver: (() => void) | undefined;

	constructor(wsUrl: string) {
		super();
		this.state = {
			status: "offline",
			statusDetail: undefined,
			retryAt: undefined,
			tokenNeeded: false,
			tokenRefused: false,
			ready: false,
			sessionId: sessionStorage.getItem(SESSION_KEY) ?? undefined,
			session: undefined,
			models: [],
			thinkingLevels: [],
			sessions: { project: [], all: [] },
			toasts: [],
			hasToken: Boolean(sessionStorage.getItem(TOKEN_KEY)),
			memory: undefined,
			setup: undefined,
			startCommand: undefined,
			draftVersion: 0,
			opening: false,
			notes: {},
			announcement: undefined,
		};
		this.client = new SkiffClient({ url: wsUrl, token: () => sessionStorage.getItem(TOKEN_KEY) ?? undefined, WebSocket: withEarlySocket() });
		// Each panel state subscribes to the events it follows in its constructor. None of them reads what the
		// controller makes of an event (and views render a frame later, after every listener has run), so the
		// order in which the client calls them and the controller does not matter.
		const context: PanelContext = {
			client: this.client,
			sessionId: () => this.state.sessionId,
			changed: (now) => (now ? this.flush() : this.schedule()),
			toast: (text) => this.toast(text),
			announce: (text) => this.announce(text),
		};
		this.tree = new TreeState(context);
		this.settings = new SettingsState(context);
		this.mcp = new McpState(context);
		this.maintenance = new MaintenanceState(context, () => sessionStorage.getItem(TOKEN_KEY) ?? undefined);
		this.sideChat = new SideChatState(context);
		this.todo = new TodoState(context);
		this.changes = new ChangesState(context, (sessionId, text) => this.send(sessionId, text));
		this.goal = new GoalState(context);
		this.news = new PanelNews(context);
		this.jobs = new JobsState(context);
		this.personas = new PersonasState(context);
		this.workflows = new WorkflowsState(context);
		this.collab = new CollabState(context);
		this.runs = new RunWatch(context);
		this.files = new FilesState(context);
		this.completions = new Completions(this.client, context.sessionId);
		this.live = new SessionLive(context, this.runs);
		this.search = new SessionSearch(context);
		this.findText = new SessionSearch(context, 20);
		this.trash = new SessionTrash(context, { refresh: () => void this.refreshSessions(), leave: (sessionId) => this.leave(sessionId) });
		this.client.onStatus((change) => this.onStatus(change));
		this.client.onEvent((event) => this.onEvent(event));
		this.client.onResync(({ sessionId }) => {
			if (sessionId === this.state.sessionId) this.stale.add(sessionId);
			else this.transcripts.delete(sessionId); // switching to it loads its snapshot anew
		});
	}

	/** The transcript of the current session, if bound. */
	transcript(): Transcript | undefined {
		return this.state.sessionId ? this.transcripts.get(this.state.sessionId) : undefined;
	}

	/** The current session's title by the one rule (name, else first message, else "New session"). */
	title(): string {
		const { session, sessionId, sessions } = this.state;
		const row = sessions.project.find((r) => r.sessionId === sessionId) ?? sessions.all.find((r) => r.sessionId === sessionId);
		return sessionTitle(session?.sessionName ?? row?.name, row?.firstMessage || this.firstMessage(sessionId));
	}

	/** A listed session's title by the same rule; a session too new to be on disk yet has its first message here. */
	rowTitle(row: SessionSummary): string {
		return sessionTitle(row.name, row.firstMessage || this.firstMessage(row.sessionId));
	}

	private firstMessage(sessionId: string | undefined): string | undefined {
		const transcript = sessionId ? this.transcripts.get(sessionId) : undefined;
		// Without its oldest messages the transcript does not know the first one (the title waits for them).
		const first = transcript && !transcript.partial ? transcript.messages.find((m) => m.role === "user") : undefined;
		return first ? contentText(first.content) : undefined;
	}

	/**
	 * The current session's model when it can be used: one of the models with credentials. (Without any, the
	 * service reports a placeholder model with id "unknown", which is never shown.)
	 */
	model(): ModelInfo | undefined {
		const model = this.state.session?.model;
		return model && this.state.models.some((m) => m.provider === model.provider && m.id === model.id) ? model : undefined;
	}

	/** Whether the service has no usable model: nothing can be sent until one is set up. */
	noModel(): boolean {
		return this.state.ready && (!this.model() || this.state.setup !== undefined);
	}

	start(): void {
		this.connect();
	}

	/**
	 * Calls `then` once, when the first bind has ended (bound, or failed: a toast says why) or the first connection
	 * did not open (refused, or lost: the page retries); returns the function that stops waiting.
	 */
	afterFirstBind(then: () => void): () => void {
		this.firstBindOver = then;
		return () => (this.firstBindOver = undefined);
	}

	private endFirstBind(): void {
		const then = this.firstBindOver;
		this.firstBindOver = undefined;
		then?.();
	}

	/** Tries to connect again now, instead of waiting for the next retry. */
	retryNow(): void {
		this.connect();
	}

	draft(sessionId: string): string {
		return this.drafts.get(sessionId);
	}

	/**
	 * The images attached in a session's message box and not sent yet: kept per session for the page's life (not
	 * across a reload, unlike drafts: they are megabytes), so a box made anew holds them again.
	 */
	attachments(sessionId: string): Attachment[] {
		return this.attached.get(sessionId) ?? [];
	}

	keepAttachments(sessionId: string, images: Attachment[]): void {
		if (images.length) this.attached.set(sessionId, images);
		else this.attached.delete(sessionId);
	}

	/**
	 * The session whose draft the message box holds: the one shown, but while another is being opened, the one
	 * shown when that was asked for (what is typed meanwhile then goes with the session opened: box-handover.ts).
	 * Asked for as the page renders.
	 */
	boxSession(): string {
		return this.handover.box(this.state.sessionId ?? "");
	}

	/** Runs a change of the session shown (its command and the adoption of its answer): see boxSession. */
	private async change<T>(run: () => Promise<T>): Promise<T> {
		const asked = this.handover.begin(this.state.sessionId ?? "");
		this.update({ opening: true });
		this.flush(); // the box says so with the click, before any keystroke: a user's own action
		try {
			return await run();
		} finally {
			if (this.handover.end(asked)) this.update({ opening: false });
		}
	}

	/** Keeps what is typed for its session (no re-render: the composer holds the text it shows). */
	saveDraft(sessionId: string, text: string): void {
		this.drafts.set(sessionId, text);
		// A note about the box's text (given back, not sent) no longer applies once the box is emptied.
		if (!text.trim() && this.state.notes[sessionId]) this.dismissNote(sessionId);
	}

	dismissNote(sessionId: string): void {
		const { [sessionId]: _, ...notes } = this.state.notes;
		this.update({ notes });
	}

	/** Reconnects; a non-empty token is saved for this tab only (sessionStorage) and offered from now on. */
	connectWithToken(token: string): void {
		const trimmed = token.trim();
		if (trimmed) sessionStorage.setItem(TOKEN_KEY, trimmed);
		this.update({ hasToken: Boolean(sessionStorage.getItem(TOKEN_KEY)), ready: false });
		this.connect();
	}

	/** Removes the token saved for this tab (it is not offered from the next connection on). */
	forgetToken(): void {
		sessionStorage.removeItem(TOKEN_KEY);
		this.update({ hasToken: false });
	}

	/**
	 * Enter or Send: a prompt while idle, a steer while a run is active (never a second prompt). Only to the
	 * session the text was typed for, only while it is the current one, and never while another is being opened
	 * (not even from a box that has not yet rendered as opening: its text stays in it). When the run ended (or one began)
	 * while the message was on its way, the service refuses it as such, and it is sent once the other way.
	 */
	async send(sessionId: string, text: string, attached: Attachment[] = []): Promise<boolean> {
		const transcript = this.transcript();
		if (!text.trim() || !this.state.ready || this.state.opening || !transcript || transcript.sessionId !== sessionId) return false;
		// Files mentioned with `@` go before the text, as pi's `@file` (mentions.ts); a refusal keeps the message.
		let mentioned: Awaited<ReturnType<typeof withMentions>>;
		try {
			mentioned = await withMentions(text.trim(), (path) => this.client.call("files_read", { path }, { sessionId }));
		} catch (error) {
			return this.refuse(sessionId, failureText(error));
		}
		const message = mentioned.text;
		const images = [...attached, ...mentioned.images];
		const refusal = tooMuch(images, message);
		if (refusal) return this.refuse(sessionId, refusal);
		const first = transcript.running ? "steer" : "prompt";
		if (this.state.notes[sessionId]) this.dismissNote(sessionId); // the user has acted on it
		// Sending is an explicit wish to follow, wherever the reader had scrolled to (transcript-view.tsx).
		transcript.followRequests++;
		this.schedule();
		const params = images.length ? { message, images: images.map(wireImage) } : { message };
		const call = (type: SendType) => this.client.call(type, params, { sessionId }).then(() => undefined, (error: unknown) => ({ type, error }));
		let failure = await call(first);
		if (failure && crossedRunEdge(failure)) {
			const retry = await call(first === "steer" ? "prompt" : "steer");
			// Refused the other way too (busy for another reason, such as a shell command): the first answer says why.
			failure = retry && crossedRunEdge(retry) ? failure : retry;
		}
		if (!failure) return true;
		const { type, error } = failure;
		if (type === "prompt" && error instanceof SkiffCommandError && error.code === "unavailable" && /model/i.test(error.message)) {
			// The setup card says what to do, and stays; the composer says plainly that nothing was sent.
			this.update({ setup: setupPathsFrom(error.message), notes: { ...this.state.notes, [sessionId]: NO_MODEL_NOTE } });
			this.announce(NO_MODEL_NOTE);
		} else if (images.length && error instanceof SkiffCommandError && /take images|^Attachment /.test(error.message)) {
			// The model reads text only, or an upload expired (remove it, attach it again): said where the images are.
			this.refuse(sessionId, error.message);
		} else this.toast(`${type} failed: ${failureText(error)}`);
		return false;
	}

	/** Uploads an attached image (POST /attachments with the tab's token); resolves its id, rejects with the sentence to show. */
	upload(image: Attachment): Promise<string> {
		return this.client.upload(image.blob!, image.mimeType).then(
			(kept) => kept.id,
			(error: unknown) => Promise.reject(new Error(failureText(error))),
		);
	}

	/** Says at the composer (and aloud) why a message was not sent; it stays in the box. */
	private refuse(sessionId: string, why: string): false {
		const note = `Not sent: ${why}.`;
		this.update({ notes: { ...this.state.notes, [sessionId]: note } });
		this.announce(note);
		return false;
	}

	abort(): void {
		const transcript = this.transcript();
		if (transcript?.running) void this.attempt("abort", {}, { sessionId: transcript.sessionId });
	}

	/** Switches to a listed session: by id when it is loaded (a new one has no file yet), else by its file. */
	switchSession(row: Pick<SessionSummary, "sessionId" | "path" | "loaded">): Promise<void> {
		return this.change(async () => {
			const snapshot = await this.command("switch_session", { sessionPath: row.loaded || !row.path ? row.sessionId : row.path });
			if (snapshot) await this.adopt(snapshot);
		});
	}

	/**
	 * Starts a session (in `cwd`, a project's folder, else the service's) and shows it; resolves why the service
	 * refused it, if it did (toasted when no folder was named: a folder's refusal is shown where it was typed).
	 */
	newSession(cwd?: string): Promise<string | undefined> {
		return this.change(async () => {
			try {
				await this.adopt(await this.client.call("new_session", cwd === undefined ? {} : { cwd }));
				return undefined;
			} catch (error) {
				if (cwd === undefined) this.toast(`new_session failed: ${failureText(error)}`);
				return failureText(error);
			}
		});
	}

	/**
	 * Forks before the `userIndex`-th user message of the current session; the new session's draft is that
	 * message's text, to edit and send there.
	 */
	fork(userIndex: number): Promise<boolean> {
		return this.change(async () => {
			const points = await this.command("get_fork_messages", {}, { sessionId: this.state.sessionId });
			const point = points?.messages[userIndex];
			return point ? this.forkFrom(point.entryId) : false;
		});
	}

	/**
	 * Forks at a user message of any branch (an entry id of get_tree); the new session's draft is its text (and
	 * after it, what was typed while it was made).
	 */
	forkAt(entryId: string): Promise<boolean> {
		return this.change(() => this.forkFrom(entryId));
	}

	/** The fork itself, within a change of session (fork, forkAt). */
	private async forkFrom(entryId: string): Promise<boolean> {
		const snapshot = await this.command("fork", { entryId }, { sessionId: this.state.sessionId });
		if (!snapshot) return false;
		this.drafts.set(snapshot.sessionId, splitMentions(snapshot.text).text);
		await this.adopt(snapshot);
		return true;
	}

	/** Puts text into a session's message box, after whatever is typed there (e.g. a message to edit again). */
	putInComposer(sessionId: string, text: string): void {
		this.drafts.append(sessionId, splitMentions(text).text);
		this.update({ draftVersion: this.state.draftVersion + 1 });
	}

	/** Names the current session; resolves whether it worked (an empty name is refused by the caller). */
	async rename(name: string): Promise<boolean> {
		if (!name.trim()) return false;
		const named = await this.command("set_session_name", { name }, { sessionId: this.state.sessionId });
		await this.refreshState();
		void this.refreshSessions();
		return named !== undefined;
	}

	async closeSession(sessionId: string): Promise<void> {
		if (await this.command("close_session", {}, { sessionId })) await this.leave(sessionId);
	}

	/** A session left memory (closed, or moved to the trash): if it was shown, the primary session is shown instead. */
	private async leave(sessionId: string): Promise<void> {
		this.transcripts.delete(sessionId);
		if (sessionId === this.state.sessionId) {
			const primary = await this.command("get_state", {});
			if (primary) await this.switchSession({ ...primary, path: "", loaded: true });
		}
		void this.refreshSessions();
	}

	async setModel(provider: string, modelId: string): Promise<void> {
		const model = await this.command("set_model", { provider, modelId }, { sessionId: this.state.sessionId });
		if (model) this.update({ setup: undefined });
		await this.refreshModel();
	}

	async setThinkingLevel(level: ThinkingLevel): Promise<void> {
		await this.command("set_thinking_level", { level }, { sessionId: this.state.sessionId });
		await this.refreshState();
	}

	async refreshMemory(): Promise<void> {
		const memory = await this.command("memory_get_settings", {}, { sessionId: this.state.sessionId, quiet: true });
		this.update({ memory });
	}

	/** Reads the session lists again (a call while they are read reads them once more after). */
	readonly refreshSessions = coalesce(async () => {
		// With the sessions features made (jobs, workflows): the lists nest them under their parent (session-rows.ts).
		const [project, all] = await Promise.all([
			this.command("session_list", { scope: "project", internal: true }, { quiet: true }),
			this.command("session_list", { scope: "all", internal: true }, { quiet: true }),
		]);
		this.update({ sessions: { project: project?.sessions ?? [], all: all?.sessions ?? [] } });
		this.live.watch(this.state.sessions.all);
	});

	private connect(): void {
		this.client.connect().catch(() => undefined); // failures arrive as status changes
	}

	private onStatus(change: StatusChange): void {
		// The pill turns `connected` only once the page is bound again, so controls never look usable before.
		if (change.status === "connected") return void this.bind();
		const wasConnected = this.state.status === "connected";
		const refused = change.status === "offline" && (change.refusal?.kind === "refused_or_down" || change.refusal?.kind === "unauthorized");
		const tokenRefused = refused && this.state.hasToken;
		const retryAt = change.retryInMs === undefined ? undefined : Date.now() + change.retryInMs;
		this.update({
			status: change.status,
			statusDetail: statusSentence(change, refused, tokenRefused),
			retryAt,
			// While trying a token, the token field stays (it is needed until a connection opens).
			tokenNeeded: refused || (change.status === "connecting" && this.state.tokenNeeded),
			tokenRefused,
			ready: false,
		});
		if (wasConnected && change.status !== "offline") {
			this.lost = true;
			this.announce("Connection lost. Reconnecting.");
		}
		// The bar says so too, but only in the main column: a toast reaches whoever is reading a panel or the drawer.
		if (wasConnected) this.connectionToast = this.toast(change.status === "offline" ? "Disconnected from the service." : "Connection to the service lost: reconnecting…");
		if (change.status !== "connecting") this.endFirstBind();
	}

	/**
	 * After every (re)connect, once the client has resumed the sessions it follows (replaying missed events, or
	 * announcing a resync): bind to the remembered session (following it first if the client does not yet), reload
	 * its snapshot when it is new here or stale, then read state, models and sessions. Controls stay inactive
	 * until this is done.
	 */
	private async bind(): Promise<void> {
		this.update({ ready: false });
		try {
			const remembered = this.state.sessionId;
			const { sessionId, state, lists } =
				remembered && this.transcripts.has(remembered) ? await this.rebind(remembered) : await this.firstBind(remembered);
			this.setCurrent(sessionId);
			this.update({ session: state });
			const [models, levels] = await lists;
			// A model set up since a prompt failed for want of one (and a restart) ends the setup advice.
			const setup = models.models.length > 0 ? undefined : this.state.setup;
			this.update({ models: models.models, thinkingLevels: levels.levels, setup, startCommand: models.startCommand });
			if (this.client.status !== "connected") return;
			this.update({ status: "connected", statusDetail: undefined, retryAt: undefined, tokenNeeded: false, tokenRefused: false, ready: true });
			if (this.connectionToast !== undefined) this.dismissToast(this.connectionToast);
			this.connectionToast = undefined;
			if (this.lost) this.announce("Connected again.");
			this.lost = false;
			void this.refreshSessions();
			void this.refreshMemory();
		} catch (error) {
			this.toast(`could not bind to a session: ${failureText(error)}`);
		} finally {
			this.endFirstBind();
		}
	}

	/**
	 * Binds to a session this page has a transcript of (a reconnect): follows it again if the client does not (its
	 * resume failed), then reloads its snapshot if it is stale, else reads its state.
	 */
	private async rebind(remembered: string): Promise<Bound> {
		let sessionId = remembered;
		if (!this.client.isFollowing(sessionId)) {
			const subscribed = await this.client.commands.subscribe({}, { sessionId }).catch(() => this.client.commands.subscribe()); // gone: the primary
			sessionId = subscribed.sessionId;
		}
		// Models and levels are asked for with the snapshot rather than after it: one round trip fewer before the
		// page is ready (they do not depend on it); they are applied after it.
		const lists = this.lists(sessionId);
		const state = !this.transcripts.has(sessionId) || this.stale.has(sessionId) ? await this.reload(sessionId, FIRST_MESSAGES) : await this.client.commands.get_state({}, { sessionId });
		return { sessionId, state, lists };
	}

	/**
	 * The page's first bind (or to a session it has no transcript of): follows the remembered session, else the
	 * primary, and asks for its newest messages, its state and the model lists in the same flight, so that the
	 * first render waits for one round trip rather than two. The commands address the session as subscribe does
	 * (by the remembered id, or none: the primary). The transcript holds events from the answer to subscribe on
	 * (the service sends it before the session's events); a snapshot older than where following began, or of
	 * another session (the primary changed in between), is read again addressed by id.
	 */
	private async firstBind(remembered: string | undefined): Promise<Bound> {
		const address = { sessionId: remembered };
		const subscribing = this.client.commands.subscribe({}, address);
		const holding = subscribing.then(({ sessionId }) => {
			const transcript = this.transcriptFor(sessionId);
			transcript.holdEvents();
			return transcript;
		});
		const snapshot = Promise.all([this.client.call("get_messages", { last: FIRST_MESSAGES }, address), this.client.commands.get_state({}, address)]);
		const lists = this.lists(remembered);
		snapshot.catch(() => undefined); // met below, once subscribe has answered
		let transcript: Transcript;
		try {
			transcript = await holding;
		} catch (error) {
			if (remembered === undefined) throw error;
			return this.firstBind(undefined); // the remembered session is gone: the primary
		}
		const subscribed = await subscribing;
		const [messages, state] = await snapshot.catch((error: unknown) => {
			this.stale.add(subscribed.sessionId); // the next bind reads it again, releasing the held events
			throw error;
		});
		if (state.sessionId !== subscribed.sessionId || messages.seq < subscribed.seq) return { sessionId: subscribed.sessionId, state: await this.reload(subscribed.sessionId, FIRST_MESSAGES), lists };
		this.stale.delete(subscribed.sessionId);
		transcript.load({ messages: messages.messages, streaming: messages.streaming, seq: messages.seq, running: state.isStreaming, total: messages.total });
		this.schedule();
		if (transcript.partial) void this.loadOlder(transcript);
		return { sessionId: subscribed.sessionId, state, lists };
	}

	/** The models and thinking levels, for the session addressed (none: the primary). */
	private lists(sessionId: string | undefined): Promise<[CommandResult<"get_available_models">, CommandResult<"get_available_thinking_levels">]> {
		const lists = Promise.all([this.client.commands.get_available_models({}, { sessionId }), this.client.commands.get_available_thinking_levels({}, { sessionId })]);
		lists.catch(() => undefined); // a failure is met once the snapshot is in
		return lists;
	}

	/**
	 * Replaces a session's transcript with its backend snapshot (events meanwhile are held, then applied);
	 * returns the session's state read with it.
	 */
	private async reload(sessionId: string, last?: number): Promise<SessionState> {
		const transcript = this.transcriptFor(sessionId);
		transcript.holdEvents();
		const [snapshot, state] = await Promise.all([this.client.reloadSession(sessionId, last), this.client.commands.get_state({}, { sessionId })]);
		this.stale.delete(sessionId);
		transcript.load({ messages: snapshot.messages, streaming: snapshot.streaming, seq: snapshot.seq, running: state.isStreaming, total: snapshot.total });
		this.schedule();
		if (transcript.partial) void this.loadOlder(transcript);
		return state;
	}

	/**
	 * The messages a snapshot of the newest left out, while those show. The whole transcript is read (at a later
	 * seq: what came since has arrived as events) and its oldest part put before them; if a reload replaced
	 * the partial snapshot meanwhile, that one stands. Failing, the session is reloaded at the next bind.
	 */
	private async loadOlder(transcript: Transcript): Promise<void> {
		const { loaded, offset, sessionId } = transcript;
		try {
			const whole = await this.client.reloadSession(sessionId);
			if (transcript.prependOlder(loaded, whole.messages.slice(0, offset))) this.schedule();
		} catch {
			if (transcript.loaded === loaded) this.stale.add(sessionId);
		}
	}

	/** Takes over a lifecycle command's snapshot `{sessionId, state, messages}` as the current session. */
	private async adopt(snapshot: CommandResult<"new_session">): Promise<void> {
		const transcript = this.transcriptFor(snapshot.sessionId);
		transcript.load({ messages: snapshot.messages, seq: snapshot.state.lastSeq, running: snapshot.state.isStreaming });
		this.stale.delete(snapshot.sessionId);
		this.setCurrent(snapshot.sessionId);
		this.update({ session: snapshot.state });
		void this.refreshSessions();
		void this.refreshMemory();
	}

	private setCurrent(sessionId: string): void {
		sessionStorage.setItem(SESSION_KEY, sessionId);
		this.update({ sessionId });
	}

	private async refreshState(): Promise<void> {
		const state = await this.command("get_state", {}, { sessionId: this.state.sessionId, quiet: true });
		if (state) this.update({ session: state });
	}

	private onEvent(event: SkiffEvent): void {
		// The conversation moved on its tree (any client's navigate_tree): the transcript is the new branch.
		if (event.type === "tree_changed" && event.reload && event.sessionId === this.state.sessionId) {
			// The conversation the note spoke of (a run that stopped before taking a message) is no longer the one shown.
			if (this.state.notes[event.sessionId]) this.dismissNote(event.sessionId);
			void this.reload(event.sessionId).then((session) => this.update({ session }), () => this.stale.add(event.sessionId));
		}
		const transcript = this.transcripts.get(event.sessionId);
		if (!transcript || !transcript.apply(event)) return;
		const current = event.sessionId === this.state.sessionId;
		if (event.type === "message_end" && event.message.role === "assistant") {
			const { stopReason, errorMessage } = event.message;
			if (stopReason === "error") this.toast(`run failed: ${errorMessage ?? "unknown error"}`);
			if (current) this.announce(stopReason === "error" ? `The run failed: ${errorMessage ?? "unknown error"}` : stopReason === "aborted" ? "Stopped." : `Reply: ${spokenText(contentText(event.message.content))}`);
		}
		// After the aborted reply's "Stopped.": why (a turn limit, the goal), as the transcript now shows it too.
		if (event.type === "run_stopped" && current) this.announce(`The run was stopped: ${event.message}`);
		if (event.type === "agent_end") this.giveBackDropped(transcript);
		if (current && this.state.session) {
			if (event.type === "agent_start" || event.type === "agent_end") {
				this.update({ session: { ...this.state.session, isStreaming: event.type === "agent_start" } });
				void this.refreshSessions(); // its row's count and state
			} else if (event.type === "session_info_changed" || event.type === "thinking_level_changed") void this.refreshState();
			else if (event.type === "model_changed") void this.refreshModel();
			else if (event.type === "settings_changed") void this.refreshMemory();
		}
		this.schedule();
	}

	/**
	 * Steering and follow-up messages the run ended without taking were dropped by the service: they go back into
	 * their session's composer (after any draft), with a note saying so.
	 */
	private giveBackDropped(transcript: Transcript): void {
		const dropped = transcript.takeDropped();
		if (dropped.length === 0) return;
		// Mentioned files go back as the `@path` the text still holds, not as their content.
		this.drafts.append(transcript.sessionId, dropped.map((text) => splitMentions(text).text).join("\n\n"));
		const what = dropped.length === 1 ? "Your queued message was" : `Your ${dropped.length} queued messages were`;
		const note = `${what} not delivered: the run stopped first. It is back in the message box, to edit or send again.`;
		this.update({ notes: { ...this.state.notes, [transcript.sessionId]: note }, draftVersion: this.state.draftVersion + 1 });
		if (transcript.sessionId === this.state.sessionId) this.announce(note);
	}

	private async refreshModel(): Promise<void> {
		await this.refreshState();
		const levels = await this.command("get_available_thinking_levels", {}, { sessionId: this.state.sessionId, quiet: true });
		if (levels) this.update({ thinkingLevels: levels.levels });
	}

	private transcriptFor(sessionId: string): Transcript {
		let transcript = this.transcripts.get(sessionId);
		if (!transcript) {
			transcript = new Transcript(sessionId);
			this.transcripts.set(sessionId, transcript);
		}
		return transcript;
	}

	/** Runs a command; a failure becomes an error toast (unless quiet) and resolves undefined. */
	private async command<K extends CommandName>(
		type: K,
		params: CommandParams<K>,
		options: { sessionId?: string; quiet?: boolean } = {},
	): Promise<CommandResult<K> | undefined> {
		try {
			return await this.client.call(type, params, { sessionId: options.sessionId });
		} catch (error) {
			if (!options.quiet) this.toast(`${error instanceof SkiffCommandError ? error.command : type} failed: ${failureText(error)}`);
			return undefined;
		}
	}

	/** Runs a command that answers with nothing; resolves whether it succeeded (a failure is toasted). */
	private async attempt<K extends CommandName>(type: K, params: CommandParams<K>, options: { sessionId?: string }): Promise<boolean> {
		try {
			await this.client.call(type, params, options);
			return true;
		} catch (error) {
			this.toast(`${type} failed: ${failureText(error)}`);
			return false;
		}
	}
}

type SendType = "steer" | "prompt";

/** A steer refused because no run is active, or a prompt because one is: the run's edge passed the message by. */
function crossedRunEdge({ type, error }: { type: SendType; error: unknown }): boolean {
	return error instanceof SkiffCommandError && error.code === (type === "steer" ? "conflict" : "busy");
}

/** What the connection bar says: one sentence for each state (the retry countdown is the bar's own). */
function statusSentence(change: StatusChange, refused: boolean, tokenRefused: boolean): string | undefined {
	if (tokenRefused) return "The token was refused. Check it and connect again.";
	if (refused) return "This service needs an access token. Enter it to connect.";
	if (change.status === "connecting") return "Connecting…";
	if (change.status === "reconnecting") return change.closed?.reason ? `The service closed the connection (${change.closed.reason}).` : "The connection to the service was lost.";
	if (change.status === "offline" && change.refusal) return `${change.refusal.message.charAt(0).toUpperCase()}${change.refusal.message.slice(1)}.`;
	return change.status === "offline" ? "Not connected." : undefined;
}

/** A reply as a screen reader should hear it: without markdown punctuation, and not endless. */
const SPOKEN_MAX_CHARS = 600;
function spokenText(markdown: string): string {
	const plain = markdown
		.replace(/```[^\n]*\n?/g, "")
		.replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+[.)])\s+/gm, "")
		.replace(/[*_~`]+/g, "")
		.replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
		.replace(/\s+/g, " ")
		.trim();
	return plain.length > SPOKEN_MAX_CHARS ? `${plain.slice(0, SPOKEN_MAX_CHARS)}…` : plain;
}
