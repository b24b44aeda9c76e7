/**
 * pi's settings for one session, from Skiff's settings files (never pi's own: its file-backed manager is shared
 * global state and would write there). They live in memory: what the session starts with, plus what it
 * changes itself (set_steering_mode, set_model, ... write here as pi's setters do), plus changes applied live.
 */
import { type AgentSession, SettingsManager } from "@mariozechner/pi-coding-agent";
import { DEFAULT_MAX_TURNS_PER_RUN, type SessionSettings } from "../types.js";

/** pi's settings storage, in memory; a session has no project scope of its own (Skiff merged it already). */
class InMemoryStorage {
	constructor(private text: string) {}

	withLock(scope: "global" | "project", update: (current: string | undefined) => string | undefined): void {
		if (scope === "project") {
			update(undefined);
			return;
		}
		const next = update(this.text);
		if (next !== undefined) this.text = next;
	}
}

export class PiSessionSettings {
	readonly manager: SettingsManager;
	private readonly storage: InMemoryStorage;
	/** Skiff's own bound of a run (pi knows no such setting: it is kept here, not handed to pi). */
	maxTurnsPerRun = DEFAULT_MAX_TURNS_PER_RUN;

	constructor(settings: SessionSettings) {
		const { session, ...pis } = settings;
		this.take(session);
		this.storage = new InMemoryStorage(JSON.stringify(pis));
		this.manager = SettingsManager.fromStorage(this.storage);
	}

	private take(session: SessionSettings["session"]): void {
		if (session?.maxTurnsPerRun !== undefined) this.maxTurnsPerRun = session.maxTurnsPerRun;
	}

	/**
	 * Merges changed settings into what the session reads. pi reads compaction and retry settings when it uses
	 * them, so re-reading is enough for those; the agent keeps its own copy of the queue modes, set here too.
	 */
	async apply(session: AgentSession, changes: SessionSettings): Promise<void> {
		const { session: own, ...pis } = changes;
		this.take(own);
		await this.manager.flush();
		this.storage.withLock("global", (current) => JSON.stringify(merged(JSON.parse(current ?? "{}") as Record<string, unknown>, pis)));
		await this.manager.reload();
		if (changes.steeringMode !== undefined) session.setSteeringMode(changes.steeringMode);
		if (changes.followUpMode !== undefined) session.setFollowUpMode(changes.followUpMode);
	}
}

/** `base` with `changes` over it, one level of nested objects (compaction, retry) merged key by key. */
function merged(base: Record<string, unknown>, changes: Omit<SessionSettings, "session">): Record<string, unknown> {
	const result = { ...base };
	for (const [key, value] of Object.entries(changes)) {
		const current = result[key];
		const nested = typeof value === "object" && value !== null && typeof current === "object" && current !== null;
		result[key] = nested ? { ...current, ...value } : value;
	}
	return result;
}
