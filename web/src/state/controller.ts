/**
 * The page's logic, apart from any rendering: the connection, binding to a session after every (re)connect,
 * the transcripts of followed sessions, and the commands behind every control. Views subscribe and
 * re-render at most once per animation frame.
 */
import { CommandError, Connection, type ConnectionStatus, type WireEvent } from "../net/connection";
import { type Message, Transcript } from "./transcript";

export interface SessionSummary {
	sessionId: string;
	path: string;
	cwd: string;
	name?: string;
	modified: string;
	messageCount: number;
	firstMessage: string;
	loaded: boolean;
	primary: boolean;
}

export interface ModelInfo {
	provider: string;
	id: string;
	name?: string;
}

export interface SessionState {
	sessionId: string;
	sessionName?: string;
	cwd: string;
	model?: ModelInfo;
	thinkingLevel: string;
	isStreaming: boolean;
	primary: boolean;
	lastSeq: number;
	epoch: string;
}

export interface MemoryView {
	backend: string;
	remoteApiUrl?: string;
	activeTools: string[];
	shared: boolean;
}

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
	thinkingLevels: string[];
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
	private readonly connection: Connection;
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
		this.connection = new Connection(wsUrl, () => sessionStorage.getItem(TOKEN_KEY) ?? undefined, {
			onOpen: () => void this.bind(),
			onEvent: (event) => this.onEvent(event),
			onStatus: (status, detail) => {
				const wasConnected = this.state.status === "connected";
				this.update({ status, statusDetail: detail, ready: status === "connected" && this.state.ready });
				if ((wasConnected && status === "reconnecting") || (status === "offline" && detail)) this.toast(detail ?? "connection lost");
			},
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
		this.connection.connect();
	}

	/** Reconnects; a non-empty token is saved for this tab only (sessionStorage) and offered from now on. */
	connectWithToken(token: string): void {
		const trimmed = token.trim();
		if (trimmed) sessionStorage.setItem(TOKEN_KEY, trimmed);
		this.update({ hasToken: Boolean(sessionStorage.getItem(TOKEN_KEY)), ready: false });
		this.connection.connect();
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
		const type = transcript.running ? "steer" : "prompt";
		return this.command({ type, message, sessionId: transcript.sessionId }).then((r) => r !== undefined);
	}

	abort(): void {
		const transcript = this.transcript();
		if (transcript?.running) void this.command({ type: "abort", sessionId: transcript.sessionId });
	}

	async switchSession(reference: string): Promise<void> {
		const snapshot = await this.command({ type: "switch_session", sessionPath: reference });
		if (snapshot) await this.adopt(snapshot);
	}

	async newSession(): Promise<void> {
		const snapshot = await this.command({ type: "new_session" });
		if (snapshot) await this.adopt(snapshot);
	}

	/** Forks before the `userIndex`-th user message of the current session. */
	async fork(userIndex: number): Promise<string | undefined> {
		const points = await this.command({ type: "get_fork_messages", sessionId: this.state.sessionId });
		const point = points?.messages?.[userIndex];
		if (!point) return undefined;
		const snapshot = await this.command({ type: "fork", entryId: point.entryId, sessionId: this.state.sessionId });
		if (!snapshot) return undefined;
		await this.adopt(snapshot);
		return snapshot.text as string;
	}

	async rename(name: string): Promise<void> {
		if (!name.trim()) return;
		await this.command({ type: "set_session_name", name, sessionId: this.state.sessionId });
		await this.refreshState();
		void this.refreshSessions();
	}

	async closeSession(sessionId: string): Promise<void> {
		const closed = await this.command({ type: "close_session", sessionId });
		if (!closed) return;
		this.transcripts.delete(sessionId);
		if (sessionId === this.state.sessionId) {
			const primary = await this.command({ type: "get_state" });
			if (primary) await this.switchSession(primary.sessionId);
		}
		void this.refreshSessions();
	}

	async setModel(provider: string, modelId: string): Promise<void> {
		await this.command({ type: "set_model", provider, modelId, sessionId: this.state.sessionId });
		await this.refreshState();
		const levels = await this.command({ type: "get_available_thinking_levels", sessionId: this.state.sessionId });
		if (levels) this.update({ thinkingLevels: levels.levels });
	}

	async setThinkingLevel(level: string): Promise<void> {
		await this.command({ type: "set_thinking_level", level, sessionId: this.state.sessionId });
		await this.refreshState();
	}

	/** Switches the memory backend of the current session's configuration (from the next turn). */
	async setMemoryBackend(backend: string): Promise<void> {
		const memory = await this.command({ type: "memory_set_backend", backend, sessionId: this.state.sessionId });
		if (memory) this.update({ memory });
	}

	async refreshMemory(): Promise<void> {
		const memory = await this.command({ type: "memory_get_settings", sessionId: this.state.sessionId }, { quiet: true });
		this.update({ memory });
	}

	async refreshSessions(): Promise<void> {
		const [project, all] = await Promise.all([
			this.command({ type: "session_list", scope: "project" }, { quiet: true }),
			this.command({ type: "session_list", scope: "all" }, { quiet: true }),
		]);
		this.update({ sessions: { project: project?.sessions ?? [], all: all?.sessions ?? [] } });
	}

	dismissToast(id: number): void {
		this.update({ toasts: this.state.toasts.filter((t) => t.id !== id) });
	}

	/**
	 * After every open: re-attach to the remembered session (catching up by seq when this page already
	 * holds its events, reloading the snapshot otherwise), then read state, models and sessions. Controls
	 * stay inactive until this is done.
	 */
	private async bind(): Promise<void> {
		this.update({ ready: false });
		try {
			const remembered = this.state.sessionId;
			const known = remembered ? this.transcripts.get(remembered) : undefined;
			let subscribed: { sessionId: string; resync: boolean };
			try {
				subscribed = await this.connection.request({ type: "subscribe", sessionId: remembered, sinceSeq: known?.lastSeq, epoch: known?.epoch });
			} catch {
				subscribed = await this.connection.request({ type: "subscribe" }); // the remembered session is gone: the primary
			}
			const transcript = this.transcripts.get(subscribed.sessionId);
			const state: SessionState =
				!transcript || subscribed.resync
					? await this.reload(subscribed.sessionId)
					: await this.connection.request({ type: "get_state", sessionId: subscribed.sessionId });
			this.setCurrent(subscribed.sessionId);
			this.update({ session: state });
			const [models, levels] = await Promise.all([
				this.connection.request({ type: "get_available_models", sessionId: subscribed.sessionId }),
				this.connection.request({ type: "get_available_thinking_levels", sessionId: subscribed.sessionId }),
			]);
			this.update({ models: models.models, thinkingLevels: levels.levels });
			this.connection.markReady();
			this.update({ ready: true });
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
		const [snapshot, state] = await Promise.all([
			this.connection.request({ type: "get_messages", sessionId }),
			this.connection.request({ type: "get_state", sessionId }),
		]);
		transcript.load({ messages: snapshot.messages, streaming: snapshot.streaming, seq: snapshot.seq, running: state.isStreaming, epoch: state.epoch });
		this.schedule();
		return state;
	}

	/** Takes over a lifecycle command's snapshot `{sessionId, state, messages}` as the current session. */
	private async adopt(snapshot: { sessionId: string; state: SessionState; messages: Message[] }): Promise<void> {
		const transcript = this.transcriptFor(snapshot.sessionId);
		transcript.load({ messages: snapshot.messages, seq: snapshot.state.lastSeq, running: snapshot.state.isStreaming, epoch: snapshot.state.epoch });
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
		const state = await this.command({ type: "get_state", sessionId: this.state.sessionId }, { quiet: true });
		if (state) this.update({ session: state });
	}

	private onEvent(event: WireEvent): void {
		const transcript = this.transcripts.get(event.sessionId);
		if (!transcript || !transcript.apply(event)) return;
		if (event.type === "message_end" && event.message?.role === "assistant" && event.message.stopReason === "error") {
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
	private async command(command: Record<string, unknown>, options: { quiet?: boolean } = {}): Promise<any> {
		try {
			return (await this.connection.request(command)) ?? {};
		} catch (error) {
			if (!options.quiet) {
				const name = error instanceof CommandError ? error.command : String(command.type);
				this.toast(`${name} failed: ${(error as Error).message}`);
			}
			return undefined;
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
