/**
 * What guests may see of a shared session: its transcript and live events, with secrets redacted
 * (src/shared/redact.ts), absolute paths shortened (the session's folder becomes relative, the home folder
 * `~`), internal details dropped (tool `details`, signatures, provider response ids, usage and cost, file
 * paths of the session, hidden context messages, image data), strings and nesting capped. Events that
 * only concern the host (recording, the tree, statistics, settings, the rooms themselves) are not shown.
 */
import type { WireEvent } from "../protocol/coalesce.js";
import { RUN_EVENT_TYPES } from "../protocol/events/core-events.js";
import type { CollabSessionView } from "../shared/collab-wire.js";
import { redactKept } from "../shared/redact-kept.js";

/** Longest string a guest receives; the rest is cut and marked. */
export const MAX_PUBLIC_STRING_CHARS = 65_536;
/** Deepest nesting a guest receives; deeper values become a marker. */
export const MAX_PUBLIC_DEPTH = 32;
/** What stands where a string was cut, a value was too deep, or an image was. */
export const CUT_MARKER = "…[cut]";
export const DEPTH_MARKER = "[too deep]";
export const IMAGE_MARKER = "[image]";

/** The events guests receive (the transcript's and the run's); the rest stay with the host. */
export const GUEST_EVENT_TYPES: ReadonlySet<string> = new Set([
	...RUN_EVENT_TYPES,
	"queue_update",
	"session_info_changed",
	"thinking_level_changed",
	"model_changed",
	"bash_execution_start",
	"bash_execution_update",
	"bash_execution_end",
]);

/** Fields no guest receives, at any depth. */
const DROPPED_KEYS: ReadonlySet<string> = new Set([
	"details",
	"signature",
	"thinkingSignature",
	"textSignature",
	"thoughtSignature",
	"responseId",
	"rawStopReason",
	"fullOutputPath",
	"usage",
	"sessionFile",
	"parentSession",
	"cwd",
	"headers",
	"baseUrl",
]);

export interface PublicViewOptions {
	/** The shared session's folder: paths inside it become relative. */
	cwd?: string;
	/** The home folder: other paths inside it start with `~`. */
	home?: string;
	maxStringChars?: number;
}

/** A model as guests see it: which one, nothing about how it is reached. */
function publicModel(model: unknown): CollabSessionView["model"] | undefined {
	if (typeof model !== "object" || model === null) return undefined;
	const { provider, id, name } = model as Record<string, unknown>;
	if (typeof provider !== "string" || typeof id !== "string") return undefined;
	return typeof name === "string" ? { provider, id, name } : { provider, id };
}

export class PublicView {
	private readonly prefixes: Array<{ pattern: RegExp; replacement: string }> = [];
	private readonly maxStringChars: number;

	constructor(options: PublicViewOptions = {}) {
		this.maxStringChars = options.maxStringChars ?? MAX_PUBLIC_STRING_CHARS;
		// The session's folder first: it usually lies inside the home folder.
		const roots = [
			{ root: options.cwd, inside: "", itself: "." },
			{ root: options.home, inside: "~/", itself: "~" },
		];
		for (const { root, inside, itself } of roots) {
			const trimmed = root?.replace(/\/+$/, "");
			if (!trimmed || !trimmed.startsWith("/")) continue;
			const escaped = trimmed.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
			this.prefixes.push({ pattern: new RegExp(`${escaped}/`, "g"), replacement: inside });
			// The folder itself, when no more of a name follows.
			this.prefixes.push({ pattern: new RegExp(`${escaped}(?![\\w.-])`, "g"), replacement: itself });
		}
	}

	/** A string as guests see it: paths shortened, secrets redacted, cut to the limit (only what is kept is looked at). */
	text(value: string): string {
		const { text, cut } = redactKept(value, this.maxStringChars, (kept) => this.shortenPaths(kept));
		return cut ? `${text}${CUT_MARKER}` : text;
	}

	private shortenPaths(value: string): string {
		let out = value;
		for (const { pattern, replacement } of this.prefixes) out = out.replace(pattern, replacement);
		return out;
	}

	/** Any value as guests see it (see the module comment). */
	value(value: unknown, depth = 0): unknown {
		if (typeof value === "string") return this.text(value);
		if (typeof value !== "object" || value === null) return value;
		if (depth >= MAX_PUBLIC_DEPTH) return DEPTH_MARKER;
		if (Array.isArray(value)) return value.map((item) => this.value(item, depth + 1));
		const record = value as Record<string, unknown>;
		if (record.type === "image" && "data" in record) return { type: "text", text: IMAGE_MARKER };
		const out: Record<string, unknown> = {};
		for (const [key, item] of Object.entries(record)) {
			if (DROPPED_KEYS.has(key) || item === undefined) continue;
			out[key] = this.value(item, depth + 1);
		}
		return out;
	}

	/** A transcript message as guests see it, or undefined for context hidden from transcripts. */
	message(message: unknown): unknown {
		const record = message as { role?: unknown; display?: unknown } | null;
		if (record?.role === "custom" && record.display === false) return undefined;
		return this.value(message);
	}

	/** An event as guests see it, or undefined when guests do not receive it. */
	event(event: WireEvent): WireEvent | undefined {
		if (!GUEST_EVENT_TYPES.has(event.type)) return undefined;
		if ((event.type === "message_start" || event.type === "message_end") && this.message(event.message) === undefined) return undefined;
		if (event.type === "model_changed") return { type: event.type, sessionId: event.sessionId, seq: event.seq, model: publicModel(event.model) } as WireEvent;
		return this.value(event) as WireEvent;
	}

	/** The session's state as guests see it (from get_state). */
	session(state: Record<string, unknown>): CollabSessionView {
		const view: CollabSessionView = {
			thinkingLevel: String(state.thinkingLevel ?? "off"),
			isStreaming: state.isStreaming === true,
			isCompacting: state.isCompacting === true,
			messageCount: Number(state.messageCount ?? 0),
			pendingMessageCount: Number(state.pendingMessageCount ?? 0),
		};
		if (typeof state.sessionName === "string") view.name = this.text(state.sessionName);
		const model = publicModel(state.model);
		if (model) view.model = model;
		return view;
	}
}
