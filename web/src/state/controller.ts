/**
 * The page's logic, apart from any rendering: the connection (a SkiffClient), binding to a session after every
 * (re)connect, the transcripts of followed sessions, and the commands behind every control. Views subscribe
 * and re-render at most once per animation frame.
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
} from "../../../src/client/index";
import { Transcript } from "./transcript";

export interface Toast {
	id: number;
	text: string;
}

export interface ViewState {
	status: ConnectionStatus;
	statusDetail: string | undefined;
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
}

const TOKEN_KEY = "skiff.token";
const SESSION_KEY = "skiff.session";
const TOAST_MS = 8000;

export class Controller {
	state: ViewState;
	private readonly transcripts = new Map<string, Transcript>();
	/** Sessions whose transcript must be reloaded at the next bind: their missed events could not be replayed. */
	private readonly stale = new Set<string>();
	private readonly client: SkiffClient;
	private readonly listeners = new Set<() => void>();
	private frame: number | undefined;
	private toastId = 0;

	constructor(wsUrl: string) {
		this.state = {
			status: "offline",
			statusDetail: undefined,
			ready: false,
			sessionId: sessionStorage.getItem(SESSION_KEY) ?? undefined,
			session: undefined,
			models: [],
			thinkingLevels: [],
			sessions: { project: [], all: [] },
			toasts: [],
			hasToken: Boolean(sessionStorage.getItem(TOKEN_KEY)),
			memory: undefined,
		};
		this.client = new SkiffClient({ url: wsUrl, token: () => sessionStorage.getItem(TOKEN_KEY) ?? undefined });
		this.client.onStatus((change) => this.onStatus(change));
		this.client.onEvent((event) => this.onEvent(event));
		this.client.onResync(({ sessionId }) => {
			if (sessionId === this.state.sessionId) this.stale.add(sessionId);
			else this.transcripts.delete(sessionId); // switching to it loads its snapshot anew
		});
	}

	subscribe(listener: () => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** The transcript of the current session, if bound. */
	transcript(): Transcript | undefined {
		return this.state.sessionId ? this.transcripts.get(this.state.sessionId) : undefined;
	}

	start(): void {
		this.connect();
	}

	/** Reconnects; a non-empty token is saved for this tab only (sessionStorage) and offered from now on. */
	connectWithToken(token: string): void {
		const trimmed = token.trim();
		if (trimmed) sessionStorage.setItem(TOKEN_KEY, trimmed);
		this.update({ hasToken: Boolean(sessionStorage.getItem(TOKEN_KEY)), ready: false });
		this.connect();
	}

	forgetToken(): void {
		sessionStorage.removeItem(TOKEN_KEY);
		this.update({ hasToken: false });
	}

	/** Enter or Send: a prompt while idle, a steer while a run is active (never a second prompt). */
	async send(text: string): Promise<boolean> {
		const message = text.trim();
		const transcript = this.transcript();
		if (!message || !this.state.ready || !transcript) return false;
		return this.attempt(transcript.running ? "steer" : "prompt", { message }, { sessionId: transcript.sessionId });
	}

	abort(): void {
		const transcript = this.transcript();
		if (transcript?.running) void this.attempt("abort", {}, { sessionId: transcript.sessionId });
	}

	async switchSession(reference: string): Promise<void> {
		const snapshot = await this.command("switch_session", { sessionPath: reference });
		if (snapshot) await this.adopt(snapshot);
	}

	async newSession(): Promise<void> {
		const snapshot = await this.command("new_session", {});
		if (snapshot) await this.adopt(snapshot);
	}

	/** Forks before the `userIndex`-th user message of the current session. */
	async fork(userIndex: number): Promise<string | undefined> {
		const points = await this.command("get_fork_messages", {}, { sessionId: this.state.sessionId });
		const point = points?.messages[userIndex];
		if (!point) return undefined;
		const snapshot = await this.command("fork", { entryId: point.entryId }, { sessionId: this.state.sessionId });
		if (!snapshot) return undefined;
		await this.adopt(snapshot);
		return snapshot.text;
	}

	async rename(name: string): Promise<void> {
		if (!name.trim()) return;
		await this.command("set_session_name", { name }, { sessionId: this.state.sessionId });
		await this.refreshState();
		void this.refreshSessions();
	}

	async closeSession(sessionId: string): Promise<void> {
		const closed = await this.command("close_session", {}, { sessionId });
		if (!closed) return;
		this.transcripts.delete(sessionId);
		if (sessionId === this.state.sessionId) {
			const primary = await this.command("get_state", {});
			if (primary) await this.switchSession(primary.sessionId);
		}
		void this.refreshSessions();
	}

	async setModel(provider: string, modelId: string): Promise<void> {
		await this.command("set_model", { provider, modelId }, { sessionId: this.state.sessionId });
		await this.refreshState();
		const levels = await this.command("get_available_thinking_levels", {}, { sessionId: this.state.sessionId });
		if (levels) this.update({ thinkingLevels: levels.levels });
	}

	async setThinkingLevel(level: ThinkingLevel): Promise<void> {
		await this.command("set_thinking_level", { level }, { sessionId: this.state.sessionId });
		await this.refreshState();
	}

	/** Switches the memory backend of the current session's configuration (from the next turn). */
	async setMemoryBackend(backend: MemoryView["backend"]): Promise<void> {
		const memory = await this.command("memory_set_backend", { backend }, { sessionId: this.state.sessionId });
		if (memory) this.update({ memory });
	}

	async refreshMemory(): Promise<void> {
		const memory = await this.command("memory_get_settings", {}, { sessionId: this.state.sessionId, quiet: true });
		this.update({ memory });
	}

	async refreshSessions(): Promise<void> {
		const [project, all] = await Promise.all([
			this.command("session_list", { scope: "project" }, { quiet: true }),
			this.command("session_list", { scope: "all" }, { quiet: true }),
		]);
		this.update({ sessions: { project: project?.sessions ?? [], all: all?.sessions ?? [] } });
	}

	dismissToast(id: number): void {
		this.update({ toasts: this.state.toasts.filter((t) => t.id !== id) });
	}

	private connect(): void {
		this.client.connect().catch(() => undefined); // failures arrive as status changes
	}

	private onStatus(change: StatusChange): void {
		// The pill turns `connected` only once the page is bound again, so controls never look usable before.
		if (change.status === "connected") return void this.bind();
		const wasConnected = this.state.status === "connected";
		const detail = change.status === "offline" && change.refusal ? offlineAdvice(change.refusal.kind, change.refusal.message) : change.detail;
		this.update({ status: change.status, statusDetail: detail, ready: false });
		if ((wasConnected && change.status === "reconnecting") || (change.status === "offline" && detail)) this.toast(detail ?? "connection lost");
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
			let sessionId = this.state.sessionId;
			if (!sessionId || !this.client.isFollowing(sessionId)) {
				const remembered = sessionId;
				const subscribed = await this.client.commands
					.subscribe({}, { sessionId: remembered })
					.catch((error: unknown) => (remembered ? this.client.commands.subscribe() : Promise.reject(error))); // gone: the primary
				sessionId = subscribed.sessionId;
			}
			const state = !this.transcripts.has(sessionId) || this.stale.has(sessionId) ? await this.reload(sessionId) : await this.client.commands.get_state({}, { sessionId });
			this.setCurrent(sessionId);
			this.update({ session: state });
			const [models, levels] = await Promise.all([
				this.client.commands.get_available_models({}, { sessionId }),
				this.client.commands.get_available_thinking_levels({}, { sessionId }),
			]);
			this.update({ models: models.models, thinkingLevels: levels.levels });
			if (this.client.status !== "connected") return;
			this.update({ status: "connected", statusDetail: undefined, ready: true });
			void this.refreshSessions();
			void this.refreshMemory();
		} catch (error) {
			this.toast(`could not bind to a session: ${(error as Error).message}`);
		}
	}

	/**
	 * Replaces a session's transcript with its backend snapshot (events meanwhile are held, then applied);
	 * returns the session's state read with it.
	 */
	private async reload(sessionId: string): Promise<SessionState> {
		const transcript = this.transcriptFor(sessionId);
		transcript.holdEvents();
		const [snapshot, state] = await Promise.all([this.client.reloadSession(sessionId), this.client.commands.get_state({}, { sessionId })]);
		this.stale.delete(sessionId);
		transcript.load({ messages: snapshot.messages, streaming: snapshot.streaming, seq: snapshot.seq, running: state.isStreaming });
		this.schedule();
		return state;
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
		const transcript = this.transcripts.get(event.sessionId);
		if (!transcript || !transcript.apply(event)) return;
		if (event.type === "message_end" && event.message.role === "assistant" && event.message.stopReason === "error") {
			this.toast(`run failed: ${event.message.errorMessage ?? "unknown error"}`);
		}
		if (event.sessionId === this.state.sessionId && this.state.session) {
			if (event.type === "agent_start" || event.type === "agent_end") {
				this.update({ session: { ...this.state.session, isStreaming: event.type === "agent_start" } });
				if (event.type === "agent_end") void this.refreshSessions();
			} else if (event.type === "session_info_changed") void this.refreshState();
		}
		this.schedule();
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
			if (!options.quiet) this.toast(`${error instanceof SkiffCommandError ? error.command : type} failed: ${(error as Error).message}`);
			return undefined;
		}
	}

	/** Runs a command that answers with nothing; resolves whether it succeeded (a failure is toasted). */
	private async attempt<K extends CommandName>(type: K, params: CommandParams<K>, options: { sessionId?: string }): Promise<boolean> {
		try {
			await this.client.call(type, params, options);
			return true;
		} catch (error) {
			this.toast(`${type} failed: ${(error as Error).message}`);
			return false;
		}
	}

	private toast(text: string): void {
		const toast = { id: ++this.toastId, text };
		this.update({ toasts: [...this.state.toasts.slice(-3), toast] });
		window.setTimeout(() => this.dismissToast(toast.id), TOAST_MS);
	}

	private update(patch: Partial<ViewState>): void {
		this.state = { ...this.state, ...patch };
		this.schedule();
	}

	/** Coalesces notifications into one per animation frame: a 20,000-delta reply renders at screen rate. */
	private schedule(): void {
		if (this.frame !== undefined) return;
		this.frame = requestAnimationFrame(() => {
			this.frame = undefined;
			for (const listener of this.listeners) listener();
		});
	}
}

/** What the page says when the connection did not open: the client's reason, and what to do about a token. */
function offlineAdvice(kind: string, message: string): string {
	const sentence = message.charAt(0).toUpperCase() + message.slice(1);
	return kind === "refused_or_down" || kind === "unauthorized" ? `${sentence}. If it requires a token, enter it and press Connect.` : `${sentence}.`;
}
