/**
 * The runtime's own vocabulary. Everything above src/agent/ (protocol, listener, features) speaks these
 * types; only the pi adapter knows how they map onto pi's classes.
 */

import type { RecordedGoal } from "./goal-record.js";
import type { DynamicTools, FeatureTool } from "./feature-tool.js";
import { CodedError } from "../shared/errors.js";

/** A JSON-safe object as it travels on the wire (messages, events, models). */
export type JsonObject = Record<string, unknown>;

/** Thinking levels pi understands, from none to most. */
export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

/** How queued steering or follow-up messages are delivered: all at once, or one per turn. */
export type QueueMode = "all" | "one-at-a-time";

/** Counts, tokens and cost of a session (pi's session statistics) and how full its context window is. */
export interface SessionStats {
	sessionId: string;
	sessionFile?: string;
	userMessages: number;
	assistantMessages: number;
	toolCalls: number;
	toolResults: number;
	totalMessages: number;
	tokens: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
	cost: number;
	contextUsage?: { tokens: number | null; contextWindow: number; percent: number | null };
}

/** What compaction did: the summary that replaced older messages, and the context size before. */
export interface CompactionReport {
	summary: string;
	firstKeptEntryId: string;
	tokensBefore: number;
	details?: unknown;
}

/** How much context compaction freed: pi's `tokensBefore`, and an estimate of the context right after. */
export interface CompactionTokens {
	/** Estimated tokens of the conversation as the model now sees it (pi's estimate; null when unknown). */
	tokensAfter: number | null;
}

/** The kinds of entries a session tree holds (pi's entry types, and the role of message entries). */
export const TREE_NODE_KINDS = [
	"user",
	"assistant",
	"toolResult",
	"bashExecution",
	"custom_message",
	"custom",
	"compaction",
	"branch_summary",
	"model_change",
	"thinking_level_change",
	"label",
	"session_info",
	"other",
] as const;
export type TreeNodeKind = (typeof TREE_NODE_KINDS)[number];

/** One entry of a session tree as clients see it: where it sits, what it is, and a short redacted preview. */
export interface TreeNode {
	id: string;
	/** The entry before it (null at a root). */
	parentId: string | null;
	kind: TreeNodeKind;
	/** A short single-line preview, secrets redacted (see TREE_PREVIEW_CHARS in the pi adapter). */
	preview: string;
	/** When it was recorded (ISO 8601). */
	timestamp: string;
	/** The user's label on this entry, if any. */
	label?: string;
	/** Hidden from the transcript (a custom message with `display: false`). */
	hidden?: boolean;
	/** An assistant turn's tool calls (their results are `toolResult` nodes naming this turn). */
	toolCalls?: Array<{ id: string; name: string }>;
	/** An assistant turn that did not end normally: `aborted` or `error`. */
	stopReason?: string;
	/** A tool result: the call it answers, the tool, and whether it failed. */
	toolCallId?: string;
	toolName?: string;
	isError?: boolean;
	/** A tool result: the assistant entry whose tool call it answers (a panel folds it under that turn). */
	turnId?: string;
	/** A label entry: the entry it labels. */
	targetId?: string;
}

/** A whole session tree: every entry in the order recorded (a parent before its children) and the active leaf. */
export interface SessionTree {
	nodes: TreeNode[];
	/** The entry the conversation continues from (null: before the first entry). */
	leafId: string | null;
}

/** What `navigateTree` did. */
export interface TreeNavigation {
	/** The new leaf (null: before the first entry). */
	leafId: string | null;
	/** False when the target already was the leaf (nothing changed). */
	changed: boolean;
	/** The text of the user message navigated to, for editing and sending again. */
	editorText?: string;
	/** The branch summary recorded for the branch left (with `summarize`). */
	summaryEntryId?: string;
}

/** Steering and follow-up messages waiting to be delivered to the run, oldest first. */
export interface QueuedMessages {
	steering: string[];
	followUp: string[];
}
export type QueueKind = keyof QueuedMessages;

/** What `cycleModel` switched to (pi's ModelCycleResult). */
export interface ModelCycle {
	model: ModelInfo;
	thinkingLevel: ThinkingLevel;
	/** Whether the cycle went through a scoped model list (pi's --models); Skiff has none, so always false. */
	isScoped: boolean;
}

/** The outcome of a shell command the user ran (pi's BashResult); it is recorded as a `bashExecution` message. */
export interface BashOutcome {
	/** Standard output and error together, as pi sanitizes and truncates them. */
	output: string;
	/** Undefined when the command was killed (aborted). */
	exitCode: number | undefined;
	cancelled: boolean;
	truncated: boolean;
	/** Where the whole output was saved when it was truncated. */
	fullOutputPath?: string;
}

/** A slash command a prompt may start with. */
export interface SlashCommand {
	name: string;
	description?: string;
	source: "extension" | "prompt" | "skill";
}

/** A model as shown to clients: pi's model description without request headers (they may hold secrets). */
export interface ModelInfo extends JsonObject {
	provider: string;
	id: string;
	name?: string;
	reasoning?: boolean;
	contextWindow?: number;
	maxTokens?: number;
}

/** What an agent session reports about itself. */
export interface AgentState {
	sessionId: string;
	sessionFile?: string;
	sessionName?: string;
	cwd: string;
	model?: ModelInfo;
	thinkingLevel: ThinkingLevel;
	/** A run is active: from the run's start until its end (see AgentHandle.isBusy). */
	isStreaming: boolean;
	isCompacting: boolean;
	steeringMode: QueueMode;
	followUpMode: QueueMode;
	messageCount: number;
	pendingMessageCount: number;
	autoCompactionEnabled: boolean;
	autoRetryEnabled: boolean;
	/** The session file exists on disk (a new session is written with its first message, plan, goal or name). */
	persisted: boolean;
	/** The path of the session this one continues (a fork's or child's source), from its header. */
	parentSession?: string;
	/** Why the last write of the session file failed, while it keeps failing (a full or read-only disk). */
	recordingError?: string;
}

/** A session's state as the runtime manager reports it: the agent's own, and whether it is the primary. */
export interface SessionState extends AgentState {
	primary: boolean;
}

/** One row of `session_list`. */
export interface SessionSummary {
	sessionId: string;
	path: string;
	cwd: string;
	name?: string;
	created: string;
	modified: string;
	/** The messages a user sees: user and assistant messages (not tool results, custom or hidden entries). */
	messageCount: number;
	firstMessage: string;
	/** The file of the session this one was forked or cloned from. */
	parentSession?: string;
	/**
	 * What the session is: `user` (made by a user), `fork` (forked or cloned from another, or made as a user's child
	 * of another), or the kind recorded by the feature that made it for its own work (`job`, `workflow`).
	 */
	kind: string;
	/** The session it was made from or works for (a fork's source, a job's parent), when known. */
	parentSessionId?: string;
	/** The feature's own id of the work an internal session belongs to (a job id, a workflow id). */
	ownerId?: string;
	/** Its goal's lifecycle as the file's active branch recorded it (goal-record.ts), when it has had a goal. */
	goal?: RecordedGoal;
	loaded: boolean;
	primary: boolean;
	/**
	 * Something of it is on disk. False for a loaded session that holds nothing yet (such as the fresh session a
	 * start opens): a page lists such a session only while it shows it, so each restart adds no empty row.
	 */
	recorded: boolean;
}

/** The kinds a session is listed as when no feature recorded one: a user's own session, and a fork or clone. */
export const USER_SESSION_KINDS: readonly string[] = ["user", "fork"];

/**
 * What a feature records a session it makes for its own work as (`AgentHandle` writes it with the session's
 * first entries, so a list after a restart still knows): its kind (`job`, `workflow`: the feature's word) and
 * the feature's id of the work.
 */
export interface SessionRecordedAs {
	kind: string;
	ownerId?: string;
}

/** The record of what a session is, as written into it (a `skiff.origin` custom entry). */
export interface SessionOriginEntry extends SessionRecordedAs {
	/** The session it describes: a fork copies entries, so a copied record (another id) does not count. */
	sessionId: string;
	parentSessionId?: string;
}

/** A session whose title or message text held a search's words, with a short snippet around the first hit. */
export interface SessionSearchHit {
	session: Omit<SessionSummary, "loaded" | "primary" | "recorded">;
	/** Where the first hit is: the title (name or first message) or a later message. */
	matchedIn: "title" | "message";
	/** Up to a few dozen characters either side of the first hit, on one line. */
	snippet: string;
}

/** How a search went: its hits, newest first, and whether it stopped early (limit of hits, or of time). */
export interface SessionSearchResult {
	hits: SessionSearchHit[];
	/** Files read; `truncated` when it stopped before reading all of them. */
	scanned: number;
	truncated: boolean;
}

/** A session file moved to the trash (`<agent-dir>/trash/sessions/<trashId>/`), restorable to where it was. */
export interface TrashedSession {
	trashId: string;
	sessionId: string;
	/** Where it was, and where `session_restore` puts it back. */
	originalPath: string;
	/** When it was moved to the trash (ISO 8601). */
	deletedAt: string;
	/** Its title when it was deleted (name, else first message), for a list. */
	title: string;
	cwd: string;
}

/** A raw runtime event: pi's session event, a plain object with a `type`. */
export interface RuntimeEvent {
	type: string;
	[key: string]: unknown;
}

/** Why a session left memory. */
export type UnloadReason = "closed" | "evicted" | "shutdown" | "deleted";

/** What the runtime tells the layers above about one of its sessions: an agent event, or that it was unloaded. */
export type SessionSignal = { kind: "event"; event: RuntimeEvent } | { kind: "unloaded"; reason: UnloadReason };

/** Receives every session's signals, in order per session. */
export type SessionObserver = (sessionId: string, signal: SessionSignal) => void;

/** A recorded session file could not be opened because it is damaged beyond repair (it was set aside). */
export class DamagedSessionFileError extends CodedError {
	constructor(message: string) {
		super("io_error", message);
		this.name = "DamagedSessionFileError";
	}
}

/** Ids a user may choose with --session-id: safe as part of a file name. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Where a session's conversation comes from. */
export type SessionSource =
	| { kind: "file"; path: string }
	| { kind: "new"; cwd: string; id?: string; parentSession?: string }
	| { kind: "memory"; cwd: string }
	/** A new recorded session holding the path from the root of `path` to `leafId` (null: empty, for a fork at the first message). */
	| { kind: "branch"; path: string; leafId: string | null };

/** A recorded session file and the id in its header. */
export interface SessionFileRef {
	id: string;
	path: string;
	modifiedMs: number;
}

/**
 * Finds recorded sessions on disk; implemented by the pi adapter. Every lookup is asynchronous: it may have to
 * read the sessions folder (a file another process wrote), and that never holds the event loop.
 */
export interface SessionCatalog {
	/** The newest recorded session of `cwd`, if any (for --continue). */
	findNewest(cwd: string): Promise<SessionFileRef | undefined>;
	/** The session file with exactly this id, if recorded. */
	findById(id: string): Promise<SessionFileRef | undefined>;
	/**
	 * A path, a full id or an unambiguous id prefix; rejects with an error saying what was not found or was
	 * ambiguous. A path must lie in the sessions folder unless `anywhere` (the operator's own command line).
	 */
	findReference(reference: string, baseDir: string, options?: { anywhere?: boolean }): Promise<SessionFileRef>;
	/** Summaries of this project's sessions, or of all projects', newest first. */
	list(scope: "project" | "all", cwd: string): Promise<Array<Omit<SessionSummary, "loaded" | "primary" | "recorded">>>;
	/**
	 * Sessions whose title or user-visible message text contains `query` (case-insensitive, plain text), newest
	 * first, at most `limit`; stops early (truncated) past a time bound. Never holds the event loop for long.
	 * Sessions a feature made (kinds other than USER_SESSION_KINDS) only with `internal`.
	 */
	search(query: string, scope: "project" | "all", cwd: string, limit: number, options?: { internal?: boolean }): Promise<SessionSearchResult>;
	/** Moves a recorded session file to the trash; resolves once it is there on disk. */
	trash(file: SessionFileRef): Promise<TrashedSession>;
	/** What the trash holds, newest first. */
	trashList(): Promise<TrashedSession[]>;
	/** Puts a trashed session back where it was; rejects when a file is there already or the trash id is unknown. */
	restore(trashId: string): Promise<TrashedSession>;
	/**
	 * Recorded session files last modified before `beforeMs` (epoch ms), oldest first: only regular files in the
	 * recorder's own folder layout under the sessions folder, never a symbolic link, never anything else.
	 */
	staleFiles(beforeMs: number): Promise<StaleSessionFile[]>;
	/** Deletes a file `staleFiles` listed, after checking again that it still qualifies; rejects saying why not. */
	removeStale(file: StaleSessionFile, beforeMs: number): Promise<void>;
}

/** A recorded session file old enough to prune. */
export interface StaleSessionFile {
	id: string;
	path: string;
	/** Last modified, epoch ms. */
	modifiedMs: number;
	size: number;
}

/**
 * What a session takes from Skiff's settings files (docs/settings.md), in pi's names: model defaults for a
 * new session, how queued messages are delivered, automatic compaction and retries. Absent fields keep pi's
 * defaults (or, when applied to a loaded session, its current values).
 */
export interface SessionSettings {
	defaultProvider?: string;
	defaultModel?: string;
	defaultThinkingLevel?: ThinkingLevel;
	steeringMode?: QueueMode;
	followUpMode?: QueueMode;
	compaction?: { enabled?: boolean; reserveTokens?: number; keepRecentTokens?: number };
	retry?: { enabled?: boolean; maxRetries?: number; baseDelayMs?: number };
	/** Skiff's own (pi has no such bound): turns one run may take before it is stopped (see RunStop). */
	session?: { maxTurnsPerRun?: number };
}

/** Turns a run may take when no setting says otherwise: generous, yet a model calling tools forever stops. */
export const DEFAULT_MAX_TURNS_PER_RUN = 500;
/** The highest turn limit per run a setting may ask for. */
export const MAX_TURNS_PER_RUN = 10_000;

/**
 * Why a run was stopped at a turn boundary, before another model call: it took its limit of turns (per run,
 * `session.maxTurnsPerRun`, or over the session's life, a profile's `maxTurns`), or a feature asked (the goal
 * it worked toward stopped being active). Followers hear it as `run_stopped`, right before `agent_end`.
 */
export const RUN_STOP_REASONS = ["turn_limit", "goal_inactive"] as const;
export type RunStopReason = (typeof RUN_STOP_REASONS)[number];

export interface RunStop {
	reason: RunStopReason;
	/** What happened, for people: shown by clients, and a job's error when it stops a job's child. */
	message: string;
	/** The limit reached (`turn_limit`). */
	limit?: number;
}

/**
 * What makes a session a particular agent (a job's agent definition, a persona): extra system prompt, which of
 * the core tools it may use, tools of its own, and its model. Absent fields keep the session's defaults.
 */
export interface AgentProfile {
	/** Appended to the system prompt. */
	systemPrompt?: string;
	/** The core tools it may use (an allow-list of names such as `read`, `bash`); undefined: all of them. */
	coreTools?: readonly string[];
	/** Tools of its own (a job's `yield`, a nested `task`), always active. */
	tools?: FeatureTool[];
	/** `provider/id`: the model it starts with (an unknown or unconfigured one fails the open). */
	model?: string;
	thinkingLevel?: ThinkingLevel;
	/** Turns the session may take while open, over all its runs (a job's limit); the per-run bound applies too. */
	maxTurns?: number;
}

/** How a session is opened: from a source, with the thinking level, features and settings it starts with. */
export interface OpenSessionOptions {
	thinkingLevel?: ThinkingLevel;
	/** Tools and turn-start context from features (memory, ...). */
	features?: SessionFeatures;
	/** The agent it is (jobs, personas); a plain session has none. */
	profile?: AgentProfile;
	/** The settings for the session's working directory (known once its source is read). */
	settings?: (cwd: string) => SessionSettings;
	/** For a new session a feature makes for its own work: what to record it as (with its first entries). */
	recordAs?: SessionRecordedAs & { parentSessionId?: string };
}

/** Opens (or creates) a session, ready to prompt; implemented by the pi adapter. */
export type SessionOpener = (source: SessionSource, options: OpenSessionOptions) => Promise<AgentHandle>;

/** An image attached to a user message: base64 data and its MIME type. */
export interface ImageAttachment {
	type: "image";
	data: string;
	mimeType: string;
}

/** An agent session as the runtime manager drives it; implemented by the pi adapter. */
export interface AgentHandle {
	readonly sessionId: string;
	readonly sessionFile: string | undefined;
	readonly cwd: string;
	/**
	 * The one busy flag: a run is active (from its start until its end, as clients see `agent_start` and
	 * `agent_end`) or the conversation is being compacted. A busy session is never unloaded, closed or
	 * prompted anew.
	 */
	readonly isBusy: boolean;
	/** A shell command started by `runBash` is running (the session is then not unloaded either). */
	readonly isBashRunning: boolean;
	/** Starts a run. Resolves once the prompt is accepted (and recorded), not when the run ends. */
	prompt(text: string, images?: ImageAttachment[]): Promise<void>;
	steer(text: string, images?: ImageAttachment[]): Promise<void>;
	followUp(text: string, images?: ImageAttachment[]): Promise<void>;
	abort(): Promise<void>;
	state(): AgentState;
	messages(): JsonObject[];
	/** The assistant message being streamed right now, as far as it has come (undefined when idle). */
	streamingMessage(): JsonObject | undefined;
	availableModels(): ModelInfo[];
	setModel(provider: string, modelId: string): Promise<ModelInfo>;
	/** Switches to the next model with credentials (emits `model_changed`); undefined when there is only one. */
	cycleModel(): Promise<ModelCycle | undefined>;
	availableThinkingLevels(): ThinkingLevel[];
	setThinkingLevel(level: ThinkingLevel): ThinkingLevel;
	/** Moves to the model's next thinking level; undefined when the model cannot think. */
	cycleThinkingLevel(): ThinkingLevel | undefined;
	setSteeringMode(mode: QueueMode): void;
	setFollowUpMode(mode: QueueMode): void;
	setAutoCompaction(enabled: boolean): void;
	setAutoRetry(enabled: boolean): void;
	/**
	 * Applies changed settings to the loaded session (settings_apply): queue modes, compaction and retry take
	 * effect at once; model defaults only matter to sessions created later.
	 */
	applySettings(settings: SessionSettings): Promise<void>;
	/** Stops waiting to retry a failed model call (the run then ends with the error). */
	abortRetry(): void;
	/** The text of the newest assistant reply (an aborted empty one skipped), if any. */
	lastAssistantText(): string | undefined;
	/**
	 * Runs the user's own shell command in the session's cwd and records it as a `bashExecution` message (after
	 * the active run, if one is active, as pi does). Emits `bash_execution_start`, `bash_execution_update` and
	 * `bash_execution_end`. One at a time: throws `busy` while another runs.
	 */
	runBash(command: string): Promise<BashOutcome>;
	/** Kills the running shell command, if any (it is recorded as cancelled). */
	abortBash(): void;
	/**
	 * Writes the session as a standalone HTML page to `path` (absolute), with its content policy in the page and
	 * its text redacted; throws `conflict` when nothing is recorded yet.
	 */
	exportHtml(path: string): Promise<string>;
	/**
	 * Whether the session file was changed by another program since this session last wrote or read it (then
	 * appending would branch or destroy the other program's entries: the session must be reloaded first).
	 */
	changedOnDisk(): boolean;
	/** Entries this session accepted that are not on disk (a failed or refused write), for reports on reload. */
	unrecordedEntries(): number;
	commands(): SlashCommand[];
	setName(name: string): void;
	stats(): SessionStats;
	/** Compacts the conversation; the report adds an estimate of the context size after. */
	compact(customInstructions?: string): Promise<CompactionReport & CompactionTokens>;
	/** The entry id of the conversation's current leaf, if any. */
	leafEntryId(): string | undefined;
	/** The entry before `entryId` in the conversation tree (null at the root); throws for an unknown entry. */
	parentEntryId(entryId: string): string | null;
	/** The user messages a fork can start from: `{entryId, text}`. */
	forkPoints(): Array<{ entryId: string; text: string }>;
	/**
	 * The message an entry of the tree records (any branch), undefined for an entry of another kind (a label, a
	 * compaction); throws `not_found` for an unknown entry. Read as it is kept: images keep their data.
	 */
	entryMessage(entryId: string): JsonObject | undefined;
	/** The whole conversation tree (every branch) and the active leaf. */
	tree(): SessionTree;
	/**
	 * Moves the conversation to another entry of its tree (pi's navigateTree): at a user message the leaf becomes
	 * its parent and its text is returned for editing; `summarize` first records a summary of the branch left
	 * (it calls the model). Throws `busy` during a run, compaction or shell command, `not_found` for an unknown
	 * entry. Emits `tree_changed` (reason `navigated`).
	 */
	navigateTree(entryId: string, options?: { summarize?: boolean; customInstructions?: string }): Promise<TreeNavigation>;
	/**
	 * Sends the user message `entryId` again from before it, as a new branch: with `text` instead of its text (edit
	 * and resend), else with its own text and images (regenerate). Refused like navigateTree and prompt; nothing
	 * moves when it is refused. Resolves once the prompt is recorded, as prompt does.
	 */
	resend(entryId: string, text?: string): Promise<void>;
	/** Sets (or, with undefined, clears) an entry's label. Throws `busy` during a run, `not_found` for an unknown entry. */
	setLabel(entryId: string, label: string | undefined): void;
	/** The steering and follow-up messages waiting for the run. */
	queuedMessages(): QueuedMessages;
	/** Removes one waiting message before it is delivered (emits `queue_update`) and returns its text. */
	cancelQueued(kind: QueueKind, index: number): string;
	/** Removes every waiting message (emits `queue_update` when there were any) and returns them. */
	clearQueue(): QueuedMessages;
	/**
	 * Adds messages from outside the conversation (a finished job's result) as custom messages, in order; with
	 * `wake`, the last one starts a run (the model answers it). Throws `busy` while a run is active.
	 */
	deliver(messages: DeliveredMessage[], options: { wake: boolean }): Promise<void>;
	/** Sends the session's model one tiny request (costs a request); throws, with the reason, when it fails. */
	probeModel(): Promise<void>;
	subscribe(listener: (event: RuntimeEvent) => void): () => void;
	/**
	 * Stops any run, compaction and shell command, and resolves once everything they produced is recorded
	 * (shutdown). A run it cut off is followed by a hidden `run_interrupted` message (RUN_INTERRUPTED_TYPE), so that
	 * the session, opened again after the restart, knows why its last reply stopped.
	 */
	settle(): Promise<void>;
	dispose(): void;
	/**
	 * Forks the conversation as it stands at the call (taken before the returned promise first waits) into a
	 * side chat: another agent, held in memory only (nothing is written to this session's file), with the
	 * session's model and thinking level, pi's read-only tools and `options.tools`.
	 */
	openSideChat(options: SideChatOptions): Promise<SideChatHandle>;
}

/** The custom message type recorded after a run that the service's shutdown cut off (AgentHandle.settle). */
export const RUN_INTERRUPTED_TYPE = "run_interrupted";

/** A custom message added to a conversation from outside it (AgentHandle.deliver). */
export interface DeliveredMessage {
	customType: string;
	/** What the model reads. */
	content: string;
	/** Whether clients show it in the transcript (false: hidden context). */
	display: boolean;
	details?: JsonObject;
}

/** How a side chat is opened (AgentHandle.openSideChat). */
export interface SideChatOptions {
	/** Tools beside pi's read-only ones (read, ls, and grep and find where their binaries are installed). */
	tools: FeatureTool[];
	/** Appended to the side agent's system prompt: what a side chat is and what it may do. */
	instructions: string;
}

/** A side chat: a detached agent forked from a session's conversation, in memory only, gone once disposed. */
export interface SideChatHandle {
	/** The model it runs with (`provider/id`; the session's when forked), if any. */
	readonly model: string | undefined;
	readonly thinkingLevel: ThinkingLevel;
	/** A run is active: from `prompt` until `agent_end`. */
	readonly isBusy: boolean;
	/** Starts a run; resolves once the prompt is accepted, not when the run ends. Throws `busy` during a run. */
	prompt(text: string): Promise<void>;
	/** Stops the run, if any (the partial reply is kept, `stopReason: "aborted"`). */
	abort(): Promise<void>;
	/** The messages of the side chat itself, oldest first (the forked history is the session's own). */
	messages(): JsonObject[];
	/** The assistant message being streamed right now, as far as it has come (undefined when idle). */
	streamingMessage(): JsonObject | undefined;
	/** pi's session events of the side agent. */
	subscribe(listener: (event: RuntimeEvent) => void): () => void;
	/** Stops any run and drops the side agent; it sends no more events. */
	dispose(): void;
}

/** Hidden context a feature adds before a prompt (shown to the model, marked `display: false` for clients). */
export interface HiddenContext {
	customType: string;
	content: string;
}

/** What features (memory, todo, goal, ...) give one session: tools, which are active, turn-start context. */
export interface SessionFeatures {
	/** Every tool the features may offer; registered once, activated per turn. */
	tools: FeatureTool[];
	/** Tools known only once the session runs (MCP servers'): registered before each prompt, activated per turn. */
	dynamicTools?: DynamicTools;
	/** The feature tools to offer from the next turn on. */
	activeToolNames(): string[];
	/**
	 * Context to add before the model sees `prompt` (advisory: undefined when none or on failure); several
	 * features give several hidden messages, in order.
	 */
	contextForPrompt(prompt: string, signal: AbortSignal | undefined): Promise<HiddenContext | HiddenContext[] | undefined>;
	/**
	 * The session is open: features that keep state in it rebuild that state from its active branch. `reopened`:
	 * it was loaded from its file (a restart, a session loaded again, a reload), not created, forked or cloned.
	 */
	bind?(session: FeatureSession, how: { reopened: boolean }): void;
	/**
	 * Runs before each tool call of the session (pi's own tools too), awaited: a feature sees what the tool is
	 * about to change before it changes it (the changes feature keeps a file's content before an edit). It never
	 * blocks nor alters the call: a failure or a call that takes too long is passed over.
	 */
	beforeToolCall?(call: ToolCallStart): Promise<void>;
	/**
	 * Runs after each tool call of the session: what a feature adds to the result's `details` (the changes
	 * feature: a `write`'s diff against what the file held before). It never alters the result's content nor
	 * whether it failed; a failure or a look that takes longer than BEFORE_TOOL_CALL_MS adds nothing.
	 */
	toolResultDetails?(call: ToolCallEnd): Promise<Record<string, unknown> | undefined>;
}

/** How long the features may look at a tool call (`beforeToolCall`) before it runs anyway. */
export const BEFORE_TOOL_CALL_MS = 5_000;

/** A tool call about to run: the tool's name and its arguments (read-only). */
export interface ToolCallStart {
	toolName: string;
	toolCallId: string;
	input: Readonly<Record<string, unknown>>;
}

/** A tool call that ran: the call, and whether it failed. */
export interface ToolCallEnd extends ToolCallStart {
	isError: boolean;
}

/** The features one session gets, and how they find its state again once it has its id. */
export interface SessionContribution {
	readonly features: SessionFeatures;
	/** The session is loaded under this id: commands naming it reach the features' state for it. */
	attach?(sessionId: string): void;
}

/** A feature's `custom` entry on a session's active branch (pi records it and otherwise ignores it). */
export interface CustomEntryRecord {
	id: string;
	customType: string;
	data: unknown;
	/** When it was recorded (ISO 8601). */
	timestamp: string;
}

/** What one turn (one model call and its tool calls) cost. */
export interface TurnUsage {
	/** Tokens the model reported for the turn (input, output and cache). */
	tokens: number;
	/** The turn's wall time. */
	wallTimeMs: number;
	/** When the turn started (epoch ms with a fraction, src/shared/precise-clock.ts: it orders against other readings of that clock). */
	startedAt: number;
}

/** How a hidden turn went: it started now, or waits for the active run as a follow-up. */
export type HiddenTurnStart = "started" | "queued";

/**
 * One open session as features that keep state in it see it (todo plan, goal): they record their changes as
 * custom entries and rebuild their state from the active branch, so resume, fork and tree navigation restore it.
 */
export interface FeatureSession {
	readonly sessionId: string;
	/**
	 * Records a custom entry after the leaf (it becomes the leaf) and returns its id once it is on disk. When it
	 * cannot be written (a full or read-only disk, a file another program changed) it is taken back and the
	 * recording error (`io_error`, `conflict`) is thrown: nothing changed. `keep` is for what the session must
	 * hold even then (usage, a pause the service decided): the entry stays, and the next write retries it.
	 */
	appendCustomEntry(customType: string, data: unknown, options?: { keep?: boolean }): string;
	/** The custom entries of this type on the active branch (from the root to the leaf), oldest first. */
	customEntries(customType: string): CustomEntryRecord[];
	/** Sends an event to the session's followers with its own events (a type registered in the contract). */
	emit(event: RuntimeEvent): void;
	/** Throws (`unavailable`, `busy`) when a hidden turn could not start now. */
	checkCanStartTurn(): void;
	/**
	 * Throws `busy` while the session moves to another point of its tree: a change recorded then would land on
	 * the branch being left, and be undone as soon as the move ends.
	 */
	checkCanRecord(): void;
	/**
	 * Starts one run whose prompt is a hidden message (`display: false`, recorded like any message), or queues it
	 * as a follow-up of the active run. The run streams as any other; its failures end it as any other's do.
	 */
	startHiddenTurn(context: HiddenContext): Promise<HiddenTurnStart>;
	/**
	 * Stops the active run at its next turn boundary (the turn under way, if any, ends first; no model call
	 * follows), as an abort, telling followers why (`run_stopped`). Nothing when no run is active, or when the run
	 * ends by itself at that boundary.
	 */
	stopRun(stop: RunStop): void;
	/** Hears every turn's usage once the turn has ended. */
	onTurnEnd(listener: (usage: TurnUsage) => void): () => void;
	/** Hears that the active branch changed under the leaf (tree navigation): state must be rebuilt. */
	onBranchChanged(listener: () => void): () => void;
	/** Hears that the session was closed (unloaded or replaced). */
	onClose(listener: () => void): () => void;
}

/** Where a new session sits, for the features it gets. */
export interface SessionOrigin {
	/** Its working directory (known once the session is open). */
	cwd: () => string;
	/** Its id (known once the session is open). */
	sessionId: () => string;
	/** The session it was created from (new_session with a parent, fork, clone). */
	parentSessionId?: string;
	/** A persona's root directory, for persona sessions. */
	personaRoot?: string;
	/** The agent it is (jobs, personas); undefined for a plain session. */
	profile?: AgentProfile;
}
