/**
 * In-memory stand-ins for the pi adapter: an agent handle that runs nothing and a catalog of pretend session
 * files, typed by the runtime's own interfaces so runtime tests need no casts; and a real runtime built on them
 * for tests that need one behind a dispatcher or a listener.
 */
import { RuntimeManager } from "../../src/agent/runtime-manager.js";
import type {
	AgentHandle,
	AgentState,
	BashOutcome,
	CompactionReport,
	DeliveredMessage,
	CompactionTokens,
	JsonObject,
	ModelCycle,
	ModelInfo,
	QueuedMessages,
	QueueKind,
	QueueMode,
	RuntimeEvent,
	SessionCatalog,
	SessionSearchResult,
	TrashedSession,
	SessionSettings,
	SessionFileRef,
	SessionOpener,
	SessionStats,
	SessionSummary,
	SessionTree,
	SideChatOptions,
	SlashCommand,
	StaleSessionFile,
	ThinkingLevel,
	TreeNavigation,
} from "../../src/agent/types.js";
import { FakeSideChat } from "./fake-side-chat.js";
import { CodedError } from "../../src/shared/errors.js";

export class FakeAgentHandle implements AgentHandle {
	busy = false;
	/** Set while a pretend shell command runs (see runBash). */
	bashRunning = false;
	/** Set to pretend that another program changed the session file. */
	changed = false;
	/** Entries the pretend recorder could not write. */
	unrecorded = 0;
	steeringMode: QueueMode = "one-at-a-time";
	followUpMode: QueueMode = "one-at-a-time";
	autoCompactionEnabled = true;
	autoRetryEnabled = true;
	disposed = false;
	/** Whether the session file exists (a new session has none until its first message). */
	persisted = true;
	/** The pretend queue of waiting messages. */
	queue: QueuedMessages = { steering: [], followUp: [] };
	private readonly listeners = new Set<(event: RuntimeEvent) => void>();

	constructor(
		readonly sessionId: string,
		readonly sessionFile: string | undefined,
		readonly cwd = "/p",
	) {}

	get isBusy(): boolean {
		return this.busy;
	}
	get isBashRunning(): boolean {
		return this.bashRunning;
	}
	/** Sends an event to the runtime as the agent would. */
	emit(event: RuntimeEvent): void {
		for (const listener of this.listeners) listener(event);
	}
	subscribe(listener: (event: RuntimeEvent) => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}
	state(): AgentState {
		return {
			sessionId: this.sessionId,
			sessionFile: this.sessionFile,
			cwd: this.cwd,
			thinkingLevel: "off",
			isStreaming: this.busy,
			isCompacting: false,
			steeringMode: this.steeringMode,
			followUpMode: this.followUpMode,
			autoRetryEnabled: this.autoRetryEnabled,
			messageCount: 0,
			pendingMessageCount: 0,
			autoCompactionEnabled: this.autoCompactionEnabled,
			persisted: this.persisted && this.sessionFile !== undefined,
		};
	}
	/** The pretend conversation (messages() answers it, side chats fork it). */
	conversation: JsonObject[] = [];
	messages(): JsonObject[] {
		return this.conversation;
	}
	streamingMessage(): JsonObject | undefined {
		return undefined;
	}
	availableModels(): ModelInfo[] {
		return [];
	}
	availableThinkingLevels(): ThinkingLevel[] {
		return ["off"];
	}
	setThinkingLevel(): ThinkingLevel {
		return "off";
	}
	async cycleModel(): Promise<ModelCycle | undefined> {
		return undefined;
	}
	cycleThinkingLevel(): ThinkingLevel | undefined {
		return undefined;
	}
	setSteeringMode(mode: QueueMode): void {
		this.steeringMode = mode;
	}
	setFollowUpMode(mode: QueueMode): void {
		this.followUpMode = mode;
	}
	setAutoCompaction(enabled: boolean): void {
		this.autoCompactionEnabled = enabled;
	}
	setAutoRetry(enabled: boolean): void {
		this.autoRetryEnabled = enabled;
	}
	abortRetry(): void {}
	/** Every change applySettings received, in order. */
	readonly appliedSettings: SessionSettings[] = [];
	async applySettings(settings: SessionSettings): Promise<void> {
		this.appliedSettings.push(settings);
		this.takeSettings(settings);
	}
	/** Takes settings as the pi adapter does: those a session opens with, or changes applied to it. */
	takeSettings(settings: SessionSettings): void {
		if (settings.steeringMode) this.steeringMode = settings.steeringMode;
		if (settings.followUpMode) this.followUpMode = settings.followUpMode;
		if (settings.compaction?.enabled !== undefined) this.autoCompactionEnabled = settings.compaction.enabled;
		if (settings.retry?.enabled !== undefined) this.autoRetryEnabled = settings.retry.enabled;
	}
	lastAssistantText(): string | undefined {
		return undefined;
	}
	async runBash(command: string): Promise<BashOutcome> {
		return { output: `ran ${command}`, exitCode: 0, cancelled: false, truncated: false };
	}
	abortBash(): void {}
	async exportHtml(path: string): Promise<string> {
		return path;
	}
	changedOnDisk(): boolean {
		return this.changed;
	}
	unrecordedEntries(): number {
		return this.unrecorded;
	}
	commands(): SlashCommand[] {
		return [];
	}
	setName(): void {}
	stats(): SessionStats {
		const tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
		return { sessionId: this.sessionId, userMessages: 0, assistantMessages: 0, toolCalls: 0, toolResults: 0, totalMessages: 0, tokens, cost: 0 };
	}
	leafEntryId(): string | undefined {
		return undefined;
	}
	parentEntryId(): string | null {
		return null;
	}
	forkPoints(): Array<{ entryId: string; text: string }> {
		return [];
	}
	entryMessage(entryId: string): JsonObject | undefined {
		throw new CodedError("not_found", `Unknown entry ${entryId}`);
	}
	async prompt(): Promise<void> {}
	async steer(): Promise<void> {}
	async followUp(): Promise<void> {}
	async abort(): Promise<void> {}
	async setModel(): Promise<ModelInfo> {
		throw new Error("the fake agent has no models");
	}
	async compact(): Promise<CompactionReport & CompactionTokens> {
		throw new Error("the fake agent does not compact");
	}
	tree(): SessionTree {
		return { nodes: [], leafId: null };
	}
	async navigateTree(): Promise<TreeNavigation> {
		throw new Error("the fake agent has no tree");
	}
	async resend(): Promise<void> {
		throw new Error("the fake agent has no tree");
	}
	setLabel(): void {
		throw new Error("the fake agent has no tree");
	}
	queuedMessages(): QueuedMessages {
		return { steering: [...this.queue.steering], followUp: [...this.queue.followUp] };
	}
	cancelQueued(kind: QueueKind, index: number): string {
		const [text] = this.queue[kind].splice(index, 1);
		if (text === undefined) throw new Error(`nothing at ${index}`);
		return text;
	}
	clearQueue(): QueuedMessages {
		const queued = this.queue;
		this.queue = { steering: [], followUp: [] };
		return queued;
	}
	async probeModel(): Promise<void> {
		throw new Error("the fake agent has no models");
	}
	/** Every message delivered from outside (AgentHandle.deliver), in order. */
	readonly delivered: DeliveredMessage[] = [];
	async deliver(messages: DeliveredMessage[]): Promise<void> {
		this.delivered.push(...messages);
	}
	async settle(): Promise<void> {}
	dispose(): void {
		this.disposed = true;
	}
	/** Every side chat opened from this session, in order. */
	readonly sideChats: FakeSideChat[] = [];
	/** When set, openSideChat waits for it after forking (a side chat that takes its time to open). */
	openGate: Promise<void> | undefined;
	async openSideChat(options: SideChatOptions): Promise<FakeSideChat> {
		const forked = [...this.conversation]; // before anything is awaited, as the pi adapter does
		await this.openGate;
		const side = new FakeSideChat(options, forked);
		this.sideChats.push(side);
		return side;
	}
}

/** A catalog over a map of pretend files, filled as sessions are "recorded". */
export class FakeCatalog implements SessionCatalog {
	readonly files = new Map<string, SessionFileRef>();
	/** Pretend files old enough to prune (see staleFiles), and the paths removed. */
	readonly stale: StaleSessionFile[] = [];
	readonly removed: string[] = [];

	newestFor(): SessionFileRef | undefined {
		return undefined;
	}
	byId(id: string): SessionFileRef | undefined {
		return this.files.get(id);
	}
	resolve(reference: string): SessionFileRef {
		const hit = this.files.get(reference) ?? [...this.files.values()].find((f) => f.path === reference);
		if (!hit) throw new Error(`No recorded session matches "${reference}"`);
		return hit;
	}
	// The runtime's asynchronous lookups answer from the pretend files (and from a subclass's byId and resolve).
	async findNewest(): Promise<SessionFileRef | undefined> {
		return this.newestFor();
	}
	async findById(id: string): Promise<SessionFileRef | undefined> {
		return this.byId(id);
	}
	async findReference(reference: string): Promise<SessionFileRef> {
		return this.resolve(reference);
	}
	async list(): Promise<Array<Omit<SessionSummary, "loaded" | "primary" | "recorded">>> {
		return [];
	}
	async staleFiles(beforeMs: number): Promise<StaleSessionFile[]> {
		return this.stale.filter((f) => f.modifiedMs < beforeMs && !this.removed.includes(f.path));
	}
	async removeStale(file: StaleSessionFile): Promise<void> {
		this.removed.push(file.path);
	}
	async search(): Promise<SessionSearchResult> {
		return { hits: [], scanned: 0, truncated: false };
	}
	/** Pretend trash: the file leaves `files`, and comes back on restore. */
	readonly trashed = new Map<string, { ref: SessionFileRef; record: TrashedSession }>();
	async trash(file: SessionFileRef): Promise<TrashedSession> {
		const record: TrashedSession = { trashId: `t${this.trashed.size + 1}`, sessionId: file.id, originalPath: file.path, deletedAt: new Date(0).toISOString(), title: "", cwd: "" };
		this.files.delete(file.id);
		this.trashed.set(record.trashId, { ref: file, record });
		return record;
	}
	async trashList(): Promise<TrashedSession[]> {
		return [...this.trashed.values()].map((t) => t.record);
	}
	async restore(trashId: string): Promise<TrashedSession> {
		const item = this.trashed.get(trashId);
		if (!item) throw new Error(`No trashed session ${trashId}`);
		this.trashed.delete(trashId);
		this.files.set(item.ref.id, item.ref);
		return item.record;
	}
}

/**
 * A catalog in which every id names a recorded session (`/sessions/<id>.jsonl`, a pretend file: nothing is on
 * disk), for tests whose clients address sessions by whatever id they like. An id that cannot be a file's name
 * (it holds a `/`) is recorded nowhere.
 */
export class AnyIdCatalog extends FakeCatalog {
	override byId(id: string): SessionFileRef | undefined {
		if (id.length === 0 || id.includes("/")) return undefined;
		return super.byId(id) ?? { id, path: `/sessions/${id}.jsonl`, modifiedMs: 0 };
	}
	override resolve(reference: string): SessionFileRef {
		const ref = this.byId(reference);
		return ref ?? super.resolve(reference);
	}
}

/**
 * An opener that records every session it opens in `catalog` and keeps its handles, in order. A session opened
 * from a file gets `recordedCwd` as its folder (the one its pretend file was recorded in), else the handle's default.
 */
export function fakeOpener(catalog: FakeCatalog, { recordedCwd }: { recordedCwd?: string } = {}): { openSession: SessionOpener; handles: FakeAgentHandle[] } {
	const handles: FakeAgentHandle[] = [];
	let counter = 0;
	const openSession: SessionOpener = async (source, options) => {
		const id = source.kind === "file" ? idOfPath(source.path) : source.kind === "new" && source.id ? source.id : `s${++counter}`;
		const path = `/sessions/${id}.jsonl`;
		catalog.files.set(id, { id, path, modifiedMs: 0 });
		const handle = new FakeAgentHandle(id, path, source.kind === "new" || source.kind === "memory" ? source.cwd : recordedCwd);
		if (options.settings) handle.takeSettings(options.settings(handle.cwd));
		handles.push(handle);
		return handle;
	};
	return { openSession, handles };
}

/** The id in a pretend file's name (`/sessions/<id>.jsonl`). */
function idOfPath(path: string): string {
	return path.slice(path.lastIndexOf("/") + 1, -".jsonl".length);
}

/**
 * A real runtime over these fakes in which any id resolves, as the harnesses' clients expect: the primary session
 * has the id `primary`, every other id is a recorded session (see AnyIdCatalog) loaded when first addressed, and
 * every session is of `cwd`. Its handles, in the order they were opened, let a test look at or drive a session.
 */
export async function runtimeOfAnyId(primary: string, cwd = "/p"): Promise<{ runtime: RuntimeManager; handles: FakeAgentHandle[] }> {
	const catalog = new AnyIdCatalog();
	const { openSession, handles } = fakeOpener(catalog, { recordedCwd: cwd });
	const runtime = new RuntimeManager({ cwd, catalog, openSession });
	await runtime.start({ kind: "id", id: primary });
	return { runtime, handles };
}
