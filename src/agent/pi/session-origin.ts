/**
 * What a session is, recorded in its own file: a feature that makes a session for its own work (a job's child,
 * a workflow's supervisor or worker) has it written as a `skiff.origin` custom entry among the session's first
 * entries. Kept in the session file rather than derived from the features' journals so that the core lists
 * sessions without knowing any feature (the kind is the feature's own word), a restart or a copied agent
 * directory keeps it, and a journal pruned or lost does not turn internal sessions into user ones. pi ignores
 * custom entries when it builds the model's context.
 */
import type { SessionOriginEntry } from "../types.js";

export const ORIGIN_ENTRY_TYPE = "skiff.origin";

/** The origin record in a parsed `custom` entry of the session `sessionId`, if it is one and describes that session. */
export function originOf(entry: { type?: unknown; customType?: unknown; data?: unknown }, sessionId: string): SessionOriginEntry | undefined {
	if (entry.type !== "custom" || entry.customType !== ORIGIN_ENTRY_TYPE) return undefined;
	const data = entry.data as Partial<SessionOriginEntry> | undefined;
	// A fork or clone copies the entries of its source: a record of another session does not describe this one.
	if (!data || typeof data.kind !== "string" || !data.kind || data.sessionId !== sessionId) return undefined;
	return {
		kind: data.kind,
		sessionId,
		...(typeof data.parentSessionId === "string" ? { parentSessionId: data.parentSessionId } : {}),
		...(typeof data.ownerId === "string" ? { ownerId: data.ownerId } : {}),
	};
}
