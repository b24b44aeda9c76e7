/**
 * What a session list says of a session's goal without opening the session: the goal feature records each
 * transition as a `skiff.goal` custom entry (src/features/goal/session.ts), and the list reads the lifecycle the
 * active branch's records leave it in (`session_list`'s `goal`), so that a client can flag a session whose goal
 * paused while nobody had it open. Declared here, in the runtime, because the runtime lists sessions without
 * knowing any feature (as with `skiff.origin`); the feature takes its entry type and words from here. Only the
 * lifecycle is read: the feature's own replay (goal_get, once the session is opened) checks every record.
 */

/** The custom entry type of the goal's journal records. */
export const GOAL_ENTRY_TYPE = "skiff.goal";
/** The version of journal records the goal writes (and the newest it reads). */
export const GOAL_RECORD_VERSION = 1;

export const GOAL_LIFECYCLES = ["active", "paused", "completed", "dropped"] as const;
export type GoalLifecycle = (typeof GOAL_LIFECYCLES)[number];
export const PAUSE_REASONS = ["manual", "budget_exhausted", "resume_safety"] as const;
export type PauseReason = (typeof PAUSE_REASONS)[number];

/** A goal's lifecycle as its journal recorded it, and why it paused. */
export interface RecordedGoal {
	lifecycle: GoalLifecycle;
	pauseReason?: PauseReason;
}

/**
 * The goal after one more journal record (`data` of a `skiff.goal` entry), oldest first; undefined when the
 * record is not one this version reads, where the feature's replay stops too (so the list says what was read
 * before it). Records that change no lifecycle (usage, pins) leave the goal as it is.
 */
export function nextRecordedGoal(goal: RecordedGoal | undefined, data: unknown): { goal: RecordedGoal | undefined } | undefined {
	const record = data as { version?: unknown; event?: { change?: { kind?: unknown; reason?: unknown } } } | null | undefined;
	const change = record?.event?.change;
	if (record?.version !== GOAL_RECORD_VERSION || typeof change?.kind !== "string") return undefined;
	switch (change.kind) {
		case "created":
		case "resumed":
			return { goal: { lifecycle: "active" } };
		case "paused":
			return PAUSE_REASONS.includes(change.reason as PauseReason) ? { goal: { lifecycle: "paused", pauseReason: change.reason as PauseReason } } : undefined;
		case "completed":
		case "dropped":
			return { goal: { lifecycle: change.kind } };
		default:
			return { goal };
	}
}
