/**
 * One pi AgentSession as the runtime's AgentHandle: prompts are acknowledged once recorded, and one busy
 * flag says whether a run (or a compaction) is in progress. Nothing above src/agent/ sees pi.
 */
import { CodedError } from "../../shared/errors.js";
import { redactSecrets } from "../../shared/redact.js";
import { completeSimple } from "@mariozechner/pi-ai";
import { type AgentSession, estimateTokens, type SessionManager } from "@mariozechner/pi-coding-agent";
import type {
	AgentHandle,
	AgentState,
	BashOutcome,
	CompactionReport,
	CompactionTokens,
	DeliveredMessage,
	ImageAttachment,
	JsonObject,
	ModelCycle,
	ModelInfo,
	QueuedMessages,
	QueueKind,
	QueueMode,
	RuntimeEvent,
	SessionSettings,
	SessionStats,
	SessionTree,
	SideChatHandle,
	SideChatOptions,
	SlashCommand,
	ThinkingLevel,
	TreeNavigation,
} from "../types.js";
import { RUN_INTERRUPTED_TYPE } from "../types.js";
import { noModelMessage, type PiEnvironment, toModelInfo } from "./environment.js";
import { BashStream } from "./bash-stream.js";
import { exportSealedPage } from "./export-page.js";
import { PiFeatureSession } from "./feature-session.js";
import { endedWell, removeQueued } from "./message-queue.js";
import { openPiSideChat } from "./side-chat.js";
import type { SessionRecorder } from "./recorder.js";
import { SessionTreeView } from "./session-tree.js";
import { TreeEvents } from "./tree-events.js";
import { RunBound } from "./run-bound.js";
import { refuseImagesFor } from "./image-input.js";
import type { PiSessionSettings } from "./session-settings.js";
import type { TurnStartAbort } from "./turn-start.js";

/** How long the doctor's model probe may take, and how much it may answer. */
export const PROBE_TIMEOUT_MS = 30_000;
export const PROBE_MAX_TOKENS = 16;
/** What the model reads of a run the shutdown cut off (RUN_INTERRUPTED_TYPE). */
const RUN_INTERRUPTED_TEXT = "[The previous run was cut off: the service stopped (for a restart) before it finished.]";

export class PiAgentHandle implements AgentHandle {
	/**
	 * Whether a run is in progress as clients see it: from agent_start to agent_end. This, not pi's own
	 * `isStreaming` (which stays true a moment after agent_end while pi's listeners settle), is what
	 * `isBusy` and the state's `isStreaming` report.
	 */
	private running = false;
	/** A compaction was asked for and has not ended (pi's own flag is set only once it has begun). */
	private compactionAsked = false;
	/** Listeners of the events this adapter adds to pi's (model changes, recording failures). */
	private readonly listeners = new Set<(event: RuntimeEvent) => void>();
	/** The user's shell command running now (see runBash), settled once it is recorded. */
	private bash: Promise<unknown> | undefined;
	/** A navigation of the tree is under way (it may be summarizing the branch left, which calls the model). */
	private navigating = false;
	private readonly treeView: SessionTreeView;
	private readonly treeEvents: TreeEvents;
	/** The statistics last pushed (`session_stats`), as JSON: an unchanged figure is not sent again. */
	private statsSent = "";
	/** The session as features see it, once asked for (see featureSession). */
	private features: PiFeatureSession | undefined;
	/** Stops a run at its turn limits, or when a feature asks (see run-bound.ts). */
	private readonly bound: RunBound;

	constructor(
		private readonly env: PiEnvironment,
		private readonly session: AgentSession,
		private readonly manager: SessionManager,
		private readonly recorder: SessionRecorder,
		private readonly turnStart: TurnStartAbort,
		private readonly settings: PiSessionSettings,
		/** Turns the session may take while open (its profile's limit), if bounded. */
		maxTurns?: number,
	) {
		this.treeView = new SessionTreeView(manager);
		this.treeEvents = new TreeEvents(this.treeView, manager, (event) => this.emit(event));
		this.bound = new RunBound({ agent: session.agent, perRun: () => settings.maxTurnsPerRun, perSession: maxTurns, abort: () => this.abort() });
		session.subscribe((event) => {
			if (event.type === "agent_start") this.running = true;
			else if (event.type === "agent_end") {
				// Why the run was stopped, if it was, goes out before its end (this listener being pi's first).
				const stopped = this.bound.ended(event.messages);
				if (stopped) this.emit({ type: "run_stopped", ...stopped });
				this.running = false;
				// A message queued after the run's last look at its queues is still waiting. pi would slip it into
				// the next prompt unseen. When the run ended well it starts the next run instead, as if it had come in
				// time; when the run failed it is dropped, and the queue_update that says so (sent before agent_end,
				// this listener being pi's first) lets a client offer the text again. (abort empties the queues
				// itself, returning what it dropped.)
				if (session.pendingMessageCount > 0) {
					if (endedWell(event.messages)) void this.deliverLate();
					else session.clearQueue();
				}
			}
			// After every listener has this event (pi calls them in a row), so the figures follow what they report.
			if (event.type === "turn_end" || event.type === "agent_end" || (event.type === "compaction_end" && event.result)) {
				queueMicrotask(() => this.pushStats());
			}
		});
		recorder.onChange((failure) =>
			this.emit(failure ? { type: "recording_failed", code: failure.systemCode, error: failure.message } : { type: "recording_restored" }),
		);
		recorder.onAppend((entry) => this.treeEvents.appended(entry));
	}

	/** Pushes `session_stats` when the figures changed since last pushed (several turns may end unchanged). */
	private pushStats(): void {
		const stats = this.stats();
		const json = JSON.stringify(stats);
		if (json === this.statsSent) return;
		this.statsSent = json;
		this.emit({ type: "session_stats", ...stats });
	}

	get sessionId(): string {
		return this.session.sessionId;
	}
	get sessionFile(): string | undefined {
		return this.manager.isPersisted() ? this.session.sessionFile : undefined;
	}
	get cwd(): string {
		return this.manager.getCwd();
	}
	get isBusy(): boolean {
		return this.running || this.compactionAsked || this.session.isCompacting || this.navigating;
	}
	get isBashRunning(): boolean {
		return this.bash !== undefined;
	}

	async prompt(text: string, images?: ImageAttachment[]): Promise<void> {
		const model = this.session.model;
		if (!model || !this.env.modelRegistry.hasConfiguredAuth(model)) throw new CodedError("unavailable", noModelMessage(this.env.agentDir));
		refuseImagesFor(model, images);
		this.refuseWhileNavigating();
		// A prompt sent while pi settles after agent_end waits for it instead of being refused.
		await this.settled();
		// Messages queued as the last run ended may have started a run meanwhile (see deliverLate).
		if (this.session.isStreaming) throw new CodedError("busy", "A run is active in this session: send `steer` to guide it, or `follow_up`");
		const before = this.recorder.userMessages();
		return new Promise((resolve, reject) => {
			let accepted = false;
			const run = this.session.prompt(text, {
				images,
				source: "rpc",
				preflightResult: (ok) => {
					if (ok && !accepted) {
						accepted = true;
						// Acknowledge only once the prompt is on disk: an accepted prompt survives a crash. When it
						// could not be written, the run stops (the model is not called) and the prompt fails.
						this.recorder.waitForUserMessage(before).then(resolve, (error: unknown) => {
							void this.abort().finally(() => reject(error instanceof Error ? error : new Error(String(error))));
						});
					}
				},
			});
			run.then(
				() => {
					if (!accepted) resolve(); // handled without a model run (e.g. an extension command)
				},
				(error: unknown) => {
					if (!accepted) reject(error instanceof Error ? error : new Error(String(error)));
				},
			);
		});
	}

	/**
	 * Runs the messages a run that ended well left waiting, once pi has settled (it may compact first: it then
	 * kicks the same continuation itself, and whichever comes second finds the agent busy and stands aside).
	 */
	private async deliverLate(): Promise<void> {
		await this.settled();
		if (this.isBusy || this.session.isStreaming || this.session.pendingMessageCount === 0) return;
		await this.session.agent.continue().catch(() => {}); // a failure ends that run with the error, as events
	}

	/**
	 * Resolves once pi has settled after a run's end: right after agent_end it is still finishing the run, and
	 * may then compact the context on its own (the reply filled it). At once when idle.
	 */
	private async settled(): Promise<void> {
		if (this.session.isStreaming && !this.running) await this.session.agent.waitForIdle();
		await this.compactionEnded();
	}

	/** Resolves once no compaction is under way (at once when none is). */
	private compactionEnded(): Promise<void> {
		if (!this.session.isCompacting && !this.compactionAsked) return Promise.resolve();
		return new Promise((resolve) => {
			const off = this.session.subscribe((event) => {
				if (event.type !== "compaction_end" || event.willRetry) return;
				off();
				resolve();
			});
		});
	}

	steer(text: string, images?: ImageAttachment[]): Promise<void> {
		refuseImagesFor(this.session.model, images);
		this.refuseWhileNavigating();
		return this.session.steer(text, images);
	}
	followUp(text: string, images?: ImageAttachment[]): Promise<void> {
		refuseImagesFor(this.session.model, images);
		this.refuseWhileNavigating();
		return this.session.followUp(text, images);
	}
	abort(): Promise<void> {
		this.turnStart.abort();
		this.session.abortBranchSummary(); // a navigation summarizing the branch left stops; the tree stays as it was
		return this.session.abort();
	}

	/** A message sent while the tree is being navigated would land on the branch being left. */
	private refuseWhileNavigating(): void {
		if (this.navigating) throw new CodedError("busy", "The session is moving to another point of its tree (navigate_tree): wait for it to finish, or abort it");
	}

	state(): AgentState {
		const s = this.session;
		return {
			sessionId: s.sessionId,
			sessionFile: this.sessionFile,
			sessionName: s.sessionName,
			cwd: this.cwd,
			model: s.model ? toModelInfo(s.model) : undefined,
			thinkingLevel: s.thinkingLevel as ThinkingLevel,
			isStreaming: this.running,
			isCompacting: s.isCompacting,
			steeringMode: s.steeringMode,
			followUpMode: s.followUpMode,
			messageCount: s.messages.length,
			pendingMessageCount: s.pendingMessageCount,
			autoCompactionEnabled: s.autoCompactionEnabled,
			autoRetryEnabled: s.autoRetryEnabled,
			persisted: this.recorder.onDisk,
			parentSession: this.manager.getHeader()?.parentSession,
			recordingError: this.recorder.lastFailure?.message,
		};
	}

	messages(): JsonObject[] {
		return this.session.messages as unknown as JsonObject[];
	}

	streamingMessage(): JsonObject | undefined {
		return this.running ? (this.session.state.streamingMessage as unknown as JsonObject | undefined) : undefined;
	}

	availableModels(): ModelInfo[] {
		return this.env.modelRegistry.getAvailable().map(toModelInfo);
	}

	async setModel(provider: string, modelId: string): Promise<ModelInfo> {
		const model = this.env.modelRegistry.getAvailable().find((m) => m.provider === provider && m.id === modelId);
		if (!model) {
			const known = this.env.modelRegistry.find(provider, modelId);
			throw known
				? new CodedError("unavailable", `Model ${provider}/${modelId} has no credentials configured`)
				: new CodedError("not_found", `Model not found: ${provider}/${modelId}`);
		}
		await this.session.setModel(model);
		const info = toModelInfo(model);
		this.emit({ type: "model_changed", model: info });
		return info;
	}

	async cycleModel(): Promise<ModelCycle | undefined> {
		const cycled = await this.session.cycleModel();
		if (!cycled) return undefined;
		const model = toModelInfo(cycled.model);
		this.emit({ type: "model_changed", model });
		return { model, thinkingLevel: cycled.thinkingLevel as ThinkingLevel, isScoped: cycled.isScoped };
	}

	availableThinkingLevels(): ThinkingLevel[] {
		return this.session.getAvailableThinkingLevels() as ThinkingLevel[];
	}

	setThinkingLevel(level: ThinkingLevel): ThinkingLevel {
		this.session.setThinkingLevel(level);
		return this.session.thinkingLevel as ThinkingLevel;
	}

	cycleThinkingLevel(): ThinkingLevel | undefined {
		return this.session.cycleThinkingLevel() as ThinkingLevel | undefined;
	}

	setSteeringMode(mode: QueueMode): void {
		this.session.setSteeringMode(mode);
	}
	setFollowUpMode(mode: QueueMode): void {
		this.session.setFollowUpMode(mode);
	}
	setAutoCompaction(enabled: boolean): void {
		this.session.setAutoCompactionEnabled(enabled);
	}
	setAutoRetry(enabled: boolean): void {
		this.session.setAutoRetryEnabled(enabled);
	}
	abortRetry(): void {
		this.session.abortRetry();
	}
	applySettings(settings: SessionSettings): Promise<void> {
		return this.settings.apply(this.session, settings);
	}

	lastAssistantText(): string | undefined {
		return this.session.getLastAssistantText();
	}

	async runBash(command: string): Promise<BashOutcome> {
		// pi keeps one abort controller: a second command would make the first unstoppable.
		if (this.bash) throw new CodedError("busy", "A shell command is already running in this session: wait for it or send abort_bash");
		// During a run pi would hold the message back until the next prompt, where no client sees it arrive.
		if (this.running || this.session.isStreaming) {
			throw new CodedError("busy", "A run is active in this session: run the shell command when it has ended (or abort it)");
		}
		const stream = new BashStream((event) => this.emit(event));
		stream.start(command);
		const run = this.session.executeBash(command, (chunk) => stream.output(chunk));
		this.bash = run.catch(() => undefined);
		try {
			const result = await run;
			const last = this.session.messages.at(-1) as { role?: unknown; timestamp?: unknown } | undefined;
			const recorded = last?.role === "bashExecution" && (last as { command?: unknown }).command === command ? last : undefined;
			stream.end(result, recorded as JsonObject | undefined, command, recorded === undefined);
			return result;
		} catch (error) {
			stream.fail(error);
			throw error;
		} finally {
			this.bash = undefined;
		}
	}

	abortBash(): void {
		this.session.abortBash();
	}

	async exportHtml(path: string): Promise<string> {
		if (!this.sessionFile || !this.recorder.onDisk) {
			throw new CodedError("conflict", "Nothing to export yet: the session is not recorded (it is written with its first message, plan, goal or name; --no-session records nothing)");
		}
		return exportSealedPage((raw) => this.session.exportToHtml(raw), path, this.session.sessionName);
	}

	changedOnDisk(): boolean {
		return this.recorder.changedOnDisk();
	}

	unrecordedEntries(): number {
		return this.recorder.unrecorded;
	}

	commands(): SlashCommand[] {
		const s = this.session;
		return [
			...s.extensionRunner.getRegisteredCommands().map((c) => ({
				name: c.invocationName,
				description: c.description,
				source: "extension" as const,
			})),
			...s.promptTemplates.map((t) => ({ name: t.name, description: t.description, source: "prompt" as const })),
			...s.resourceLoader.getSkills().skills.map((k) => ({
				name: `skill:${k.name}`,
				description: k.description,
				source: "skill" as const,
			})),
		];
	}

	setName(name: string): void {
		this.session.setSessionName(name);
	}

	stats(): SessionStats {
		return { ...this.session.getSessionStats(), contextUsage: this.session.getContextUsage() };
	}

	async compact(customInstructions?: string): Promise<CompactionReport & CompactionTokens> {
		// pi marks itself compacting only after an await: until then a second compact would start beside this one.
		this.compactionAsked = true;
		try {
			const report = await this.session.compact(customInstructions);
			return { ...report, tokensAfter: this.estimatedContextTokens() };
		} finally {
			this.compactionAsked = false;
		}
	}

	/**
	 * The context's size as pi estimates it from the messages the model now sees (pi's own count is unknown
	 * right after compaction, until the model answers again).
	 */
	private estimatedContextTokens(): number | null {
		const known = this.session.getContextUsage()?.tokens;
		if (typeof known === "number") return known;
		try {
			return this.session.messages.reduce((sum, message) => sum + estimateTokens(message), 0);
		} catch {
			return null;
		}
	}

	leafEntryId(): string | undefined {
		return this.manager.getLeafId() ?? undefined;
	}

	parentEntryId(entryId: string): string | null {
		const entry = this.manager.getEntry(entryId);
		if (!entry) throw new CodedError("not_found", `Unknown entry ${entryId}`);
		return entry.parentId;
	}

	forkPoints(): Array<{ entryId: string; text: string }> {
		return this.session.getUserMessagesForForking();
	}

	entryMessage(entryId: string): JsonObject | undefined {
		const entry = this.manager.getEntry(entryId);
		if (!entry) throw unknownEntry(entryId, this.sessionId);
		return entry.type === "message" ? (entry.message as unknown as JsonObject) : undefined;
	}

	tree(): SessionTree {
		return this.treeView.tree();
	}

	async navigateTree(entryId: string, options: { summarize?: boolean; customInstructions?: string } = {}): Promise<TreeNavigation> {
		this.refuseTreeChange("move to another point of the tree");
		if (!this.manager.getEntry(entryId)) throw unknownEntry(entryId, this.sessionId);
		if (options.summarize) {
			const model = this.session.model;
			if (!model || !this.env.modelRegistry.hasConfiguredAuth(model)) throw new CodedError("unavailable", noModelMessage(this.env.agentDir));
		}
		if (entryId === this.manager.getLeafId()) return { leafId: entryId, changed: false };
		this.navigating = true;
		try {
			const { result, nodes } = await this.treeEvents.collect(() =>
				this.session.navigateTree(entryId, { summarize: options.summarize, customInstructions: options.customInstructions }),
			);
			if (result.cancelled) {
				throw new CodedError(
					"failed",
					result.aborted ? "navigate_tree was aborted while summarizing the branch left; the session stays where it was" : "navigate_tree was cancelled; the session stays where it was",
				);
			}
			const leafId = this.manager.getLeafId();
			this.emit({ type: "tree_changed", reason: "navigated", leafId, nodes, reload: true });
			this.pushStats();
			return {
				leafId,
				changed: true,
				...(result.editorText !== undefined ? { editorText: result.editorText } : {}),
				...(result.summaryEntry ? { summaryEntryId: result.summaryEntry.id } : {}),
			};
		} catch (error) {
			if (error instanceof CodedError) throw error;
			throw new CodedError("failed", `navigate_tree failed: ${redactSecrets(error instanceof Error ? error.message : String(error))}`);
		} finally {
			this.navigating = false;
		}
	}

	/**
	 * Sends a user message again on a new branch: the leaf moves to the message's parent (as navigate_tree does)
	 * and a run starts there with `text`, or with the message's own text and images (regenerate). Checked before
	 * anything moves, so a refusal leaves the tree as it was; a prompt refused once the leaf has moved, before it
	 * recorded anything (a text-only model given the message's images, an extension's refusal), moves it back.
	 */
	async resend(entryId: string, text?: string): Promise<void> {
		const entry = this.manager.getEntry(entryId);
		if (!entry) throw unknownEntry(entryId, this.sessionId);
		const message = entry.type === "message" ? entry.message : undefined;
		if (message?.role !== "user") throw new CodedError("invalid_command", `Entry ${entryId} is not a user message: only a prompt can be sent again (see get_tree's kind)`);
		const model = this.session.model;
		if (!model || !this.env.modelRegistry.hasConfiguredAuth(model)) throw new CodedError("unavailable", noModelMessage(this.env.agentDir));
		this.refuseTreeChange("send a message again");
		const content = typeof message.content === "string" ? [{ type: "text" as const, text: message.content }] : message.content;
		const images = text === undefined ? content.filter((block) => block.type === "image") : [];
		const original = content.map((block) => (block.type === "text" ? block.text : "")).join("");
		const sent = text ?? original;
		if (!sent.trim() && images.length === 0) throw new CodedError("invalid_command", `Entry ${entryId} has no text to send again: send \`message\``);
		const previous = this.manager.getLeafId();
		await this.navigateTree(entryId);
		const branchPoint = this.manager.getLeafId();
		try {
			await this.prompt(sent, images.length > 0 ? images : undefined);
		} catch (error) {
			// Once the prompt's own entry is in (a disk that refuses to write it keeps it to retry), the new branch
			// holds it, as a plain prompt's would; before that the session goes back to where it was.
			if (previous !== branchPoint && this.manager.getLeafId() === branchPoint) this.moveLeafBack(previous);
			throw error;
		}
	}

	/** Puts the leaf back on an entry (no entry is written: pi keeps the leaf in memory), and followers reload. */
	private moveLeafBack(leafId: string | null): void {
		if (leafId === null) this.manager.resetLeaf();
		else this.manager.branch(leafId);
		this.session.agent.state.messages = this.manager.buildSessionContext().messages;
		this.emit({ type: "tree_changed", reason: "navigated", leafId, nodes: [], reload: true });
		this.pushStats();
	}

	setLabel(entryId: string, label: string | undefined): void {
		this.refuseTreeChange("label an entry");
		if (!this.manager.getEntry(entryId)) throw unknownEntry(entryId, this.sessionId);
		const { nodes } = this.treeEvents.collectNow(() => this.manager.appendLabelChange(entryId, label));
		this.emit({
			type: "tree_changed",
			reason: "labelled",
			leafId: this.manager.getLeafId(),
			nodes,
			reload: false,
			labelled: { entryId, ...(label !== undefined ? { label } : {}) },
		});
	}

	/** Tree changes wait for the session to be idle: a run appends to the leaf they would move. */
	private refuseTreeChange(what: string): void {
		if (this.isBusy) throw new CodedError("busy", `Cannot ${what} now: a run, a compaction or another navigation is in progress (wait for it, or abort it)`);
		if (this.bash) throw new CodedError("busy", `Cannot ${what} now: a shell command is running (wait for it, or send abort_bash)`);
	}

	queuedMessages(): QueuedMessages {
		return { steering: [...this.session.getSteeringMessages()], followUp: [...this.session.getFollowUpMessages()] };
	}

	cancelQueued(kind: QueueKind, index: number): string {
		const text = removeQueued(this.session, kind, index);
		this.emit({ type: "queue_update", ...this.queuedMessages() });
		return text;
	}

	clearQueue(): QueuedMessages {
		if (this.session.pendingMessageCount === 0) return { steering: [], followUp: [] };
		return this.session.clearQueue(); // emits queue_update
	}

	async deliver(messages: DeliveredMessage[], options: { wake: boolean }): Promise<void> {
		if (this.isBusy) throw new CodedError("busy", "A run is active in this session: deliver when it has ended");
		const last = options.wake ? messages.at(-1) : undefined;
		// Outside a run pi records each message and emits message_start/end.
		for (const message of last ? messages.slice(0, -1) : messages) await this.session.sendCustomMessage(message);
		if (!last) return;
		// With triggerTurn pi starts a run with the message and resolves when the run ends: it is not awaited.
		if (this.session.isStreaming) await this.session.agent.waitForIdle();
		this.session.sendCustomMessage(last, { triggerTurn: true }).catch((error: unknown) => {
			this.env.warn(`a delivered message could not start a run: ${redactSecrets(error instanceof Error ? error.message : String(error))}`);
		});
	}

	async probeModel(): Promise<void> {
		const model = this.session.model;
		if (!model) throw new CodedError("unavailable", noModelMessage(this.env.agentDir));
		const auth = await this.env.modelRegistry.getApiKeyAndHeaders(model);
		if (!auth.ok) throw new CodedError("unavailable", redactSecrets(auth.error));
		const reply = await completeSimple(
			model,
			{ messages: [{ role: "user", content: "Reply with the word ok.", timestamp: Date.now() }] },
			{ apiKey: auth.apiKey, headers: auth.headers, maxTokens: PROBE_MAX_TOKENS, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) },
		);
		if (reply.stopReason === "error" || reply.stopReason === "aborted") {
			throw new CodedError("failed", redactSecrets(reply.errorMessage ?? `the model answered with stopReason ${reply.stopReason}`));
		}
	}

	/**
	 * pi's session events, plus the adapter's: `model_changed`, `recording_failed`, `recording_restored`,
	 * `tree_changed`, `session_stats` (and `queue_update` after a cancelled message).
	 */
	subscribe(listener: (event: RuntimeEvent) => void): () => void {
		const offAgent = this.session.subscribe((event) => listener(event as unknown as RuntimeEvent));
		this.listeners.add(listener);
		return () => {
			offAgent();
			this.listeners.delete(listener);
		};
	}

	private emit(event: RuntimeEvent): void {
		for (const listener of this.listeners) listener(event);
	}

	async settle(): Promise<void> {
		// Aborting records the partial reply (stopReason "aborted"); entries are appended synchronously as they
		// happen, so once the agent is idle everything is on disk.
		this.session.abortBash();
		this.session.abortCompaction(); // an unfinished summary changes nothing: the conversation stays as it is
		const cutOff = this.running || this.session.isStreaming;
		if (this.session.isStreaming) await this.session.abort();
		await this.session.agent.waitForIdle();
		await this.bash; // a killed command is recorded as cancelled
		// Recorded after the aborted reply: read again after the restart, it says why the run stopped (a reply
		// aborted by a user looks the same), and it tells the model too, should the conversation go on.
		if (cutOff && this.manager.isPersisted()) {
			await this.session
				.sendCustomMessage({ customType: RUN_INTERRUPTED_TYPE, content: RUN_INTERRUPTED_TEXT, display: false, details: { reason: "shutdown" } })
				.catch((error: unknown) => this.env.warn(`the interrupted run could not be marked: ${redactSecrets(error instanceof Error ? error.message : String(error))}`));
		}
	}

	/** The session as features that keep state in it see it; `syncTools` activates the feature tools that apply now. */
	featureSession(syncTools: () => void): PiFeatureSession {
		this.features ??= new PiFeatureSession({
			env: this.env,
			session: this.session,
			manager: this.manager,
			recorder: this.recorder,
			emit: (event) => this.emit(event),
			subscribe: (listener) => this.subscribe(listener),
			running: () => this.running,
			blocked: () =>
				this.navigating
					? "the session is moving to another point of its tree"
					: this.compactionAsked || this.session.isCompacting
						? "the conversation is being compacted"
						: undefined,
			navigating: () => this.navigating,
			stopRun: (stop) => this.bound.request(stop),
			syncTools,
		});
		return this.features;
	}

	dispose(): void {
		this.features?.close();
		this.bound.dispose();
		this.session.dispose();
	}

	openSideChat(options: SideChatOptions): Promise<SideChatHandle> {
		return openPiSideChat(this.env, this.session, this.settings, options);
	}
}

function unknownEntry(entryId: string, sessionId: string): CodedError {
	return new CodedError("not_found", `Unknown entry ${entryId} in session ${sessionId}: see get_tree for the entry ids`);
}
