/**
 * The settings every agent session takes, in pi's names (so a settings.json shared with pi means the same to
 * both): model defaults, the default thinking level, delivery of queued messages, automatic compaction and
 * retries. Defaults are pi's own, so a missing file changes nothing. `session.*` keys are Skiff's own (pi has no
 * bound of a run); their section is one pi does not read.
 */
import { Type } from "typebox";
import { type AgentState, DEFAULT_MAX_TURNS_PER_RUN, MAX_TURNS_PER_RUN, type SessionSettings, THINKING_LEVELS } from "../agent/types.js";
import { defineSetting, type SettingDefinition } from "./definition.js";

const QUEUE_MODES = ["all", "one-at-a-time"] as const;
/** Upper bound of the compaction token budgets (larger than any context window pi knows). */
export const MAX_COMPACTION_TOKENS = 1_000_000;
/** Upper bound of retries of one failed model call. */
export const MAX_RETRIES = 100;
/** Upper bound of the first retry's delay (later ones double it). */
export const MAX_RETRY_BASE_DELAY_MS = 600_000;

const bothScopes = ["global", "project"] as const;

export const sessionSettingDefinitions: SettingDefinition[] = [
	defineSetting({
		key: "defaultProvider",
		category: "models",
		scopes: bothScopes,
		applies: "newSessions",
		schema: Type.String({
			description: "Provider of the model a new session starts with (with defaultModel). --model overrides it; a recorded session keeps its own model.",
			minLength: 1,
		}),
	}),
	defineSetting({
		key: "defaultModel",
		category: "models",
		scopes: bothScopes,
		applies: "newSessions",
		schema: Type.String({
			description: "Id of the model a new session starts with, within defaultProvider (see get_available_models).",
			minLength: 1,
		}),
	}),
	defineSetting({
		key: "defaultThinkingLevel",
		category: "models",
		scopes: bothScopes,
		applies: "newSessions",
		schema: Type.Enum(THINKING_LEVELS, {
			description: "Thinking level of a new session (clamped to what its model supports). --thinking overrides it.",
			default: "medium",
		}),
	}),
	defineSetting({
		key: "steeringMode",
		category: "session",
		scopes: bothScopes,
		applies: "live",
		schema: Type.Enum(QUEUE_MODES, { description: "How queued steer messages reach a run: all at once, or one per turn.", default: "one-at-a-time" }),
	}),
	defineSetting({
		key: "followUpMode",
		category: "session",
		scopes: bothScopes,
		applies: "live",
		schema: Type.Enum(QUEUE_MODES, { description: "How queued follow_up messages are sent after a run: all at once, or one per turn.", default: "one-at-a-time" }),
	}),
	defineSetting({
		key: "session.maxTurnsPerRun",
		category: "session",
		scopes: bothScopes,
		applies: "live",
		schema: Type.Integer({
			description:
				"Model turns one run may take (a prompt and everything it leads to, a job's run included): past it the run is stopped " +
				"before another model call, with the event run_stopped. Bounds a model that calls tools forever.",
			default: DEFAULT_MAX_TURNS_PER_RUN,
			minimum: 1,
			maximum: MAX_TURNS_PER_RUN,
		}),
	}),
	defineSetting({
		key: "compaction.enabled",
		category: "compaction",
		scopes: bothScopes,
		applies: "live",
		schema: Type.Boolean({ description: "Compacts the conversation automatically when the context window fills up.", default: true }),
	}),
	defineSetting({
		key: "compaction.reserveTokens",
		category: "compaction",
		scopes: bothScopes,
		applies: "live",
		schema: Type.Integer({
			description: "Tokens kept free in the context window: compaction starts when the context grows beyond the window minus this.",
			default: 16_384,
			minimum: 1,
			maximum: MAX_COMPACTION_TOKENS,
		}),
	}),
	defineSetting({
		key: "compaction.keepRecentTokens",
		category: "compaction",
		scopes: bothScopes,
		applies: "live",
		schema: Type.Integer({
			description: "Tokens of the most recent messages kept as they are; older ones are summarized.",
			default: 20_000,
			minimum: 1,
			maximum: MAX_COMPACTION_TOKENS,
		}),
	}),
	defineSetting({
		key: "retry.enabled",
		category: "retry",
		scopes: bothScopes,
		applies: "live",
		schema: Type.Boolean({ description: "Retries a model call that failed for a passing reason (overload, rate limit, server error).", default: true }),
	}),
	defineSetting({
		key: "retry.maxRetries",
		category: "retry",
		scopes: bothScopes,
		applies: "live",
		schema: Type.Integer({ description: "Retries of one failed call before the run ends with the error.", default: 3, minimum: 0, maximum: MAX_RETRIES }),
	}),
	defineSetting({
		key: "retry.baseDelayMs",
		category: "retry",
		scopes: bothScopes,
		applies: "live",
		schema: Type.Integer({
			description: "Delay before the first retry, in milliseconds; each further retry waits twice as long.",
			default: 2_000,
			minimum: 1,
			maximum: MAX_RETRY_BASE_DELAY_MS,
		}),
	}),
];

const SESSION_KEYS = new Set(sessionSettingDefinitions.map((d) => d.key));

/**
 * The session settings for these keys' values (dotted keys to pi's nested names). Keys that are not session
 * settings, and undefined values, are left out.
 */
export function sessionSettingsFrom(values: ReadonlyMap<string, unknown>): SessionSettings {
	const settings: Record<string, unknown> = {};
	for (const [key, value] of values) {
		if (!SESSION_KEYS.has(key) || value === undefined) continue;
		const [head, tail] = key.split(".") as [string, string | undefined];
		if (tail === undefined) settings[head] = value;
		else settings[head] = { ...(settings[head] as object | undefined), [tail]: value };
	}
	return settings as SessionSettings;
}

/**
 * The values a loaded session runs with now, for the keys a command can switch at run time (set_steering_mode,
 * set_auto_compaction, ...): where they differ from the files, settings_inspect says `runtime`.
 */
export function sessionRuntimeValues(state: AgentState): Record<string, unknown> {
	return {
		steeringMode: state.steeringMode,
		followUpMode: state.followUpMode,
		"compaction.enabled": state.autoCompactionEnabled,
		"retry.enabled": state.autoRetryEnabled,
	};
}
