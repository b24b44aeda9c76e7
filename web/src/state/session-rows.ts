/**
 * Which sessions a list shows, and how (the Sessions panel and the Ctrl/Cmd+K switcher): a user's sessions,
 * newest activity first, each with the sessions features made for its work (jobs, workflows) folded under it,
 * never as sessions of their own. An unused empty session (nothing on disk yet: the one each start of the
 * service opens) is listed only while it is the one shown, so restarts add no empty rows.
 */
import type { SessionSummary } from "../../../src/client/index.js";
import { activeTime } from "./session-title.js";

/** The kinds a user made (a session, a fork); every other kind is a feature's, nested under its parent. */
const USER_KINDS = new Set(["user", "fork"]);

export interface SessionNode {
	row: SessionSummary;
	/** Its internal sessions, and theirs (a job's job), newest first. */
	children: SessionSummary[];
}

/** Whether a row is a session a feature made for its own work. */
export function internal(row: Pick<SessionSummary, "kind">): boolean {
	return !USER_KINDS.has(row.kind);
}

/**
 * A new session with nothing in it and nothing on disk, not the one shown: nobody's work, not worth a row. (A
 * fork made at a first message is empty too, but it was made on purpose and holds its draft: it stays.)
 */
function unused(row: SessionSummary, currentId: string | undefined): boolean {
	return !row.recorded && row.messageCount === 0 && !row.name && !row.parentSession && row.sessionId !== currentId;
}

/**
 * The user's sessions (without unused empty ones), newest first, each with its internal sessions. An internal
 * session whose parent is not listed (another project's, or in the trash) is left out.
 */
export function sessionNodes(rows: readonly SessionSummary[], currentId: string | undefined): SessionNode[] {
	const byId = new Map(rows.map((row) => [row.sessionId, row]));
	const sorted = [...byId.values()].sort((a, b) => activeTime(b) - activeTime(a));
	const nodes = new Map<string, SessionNode>();
	for (const row of sorted) if (!internal(row) && !unused(row, currentId)) nodes.set(row.sessionId, { row, children: [] });
	for (const row of sorted) {
		if (!internal(row)) continue;
		// Up through internal parents (a job a workflow's worker spawned) to the user's session they work for.
		let parent = row.parentSessionId ? byId.get(row.parentSessionId) : undefined;
		for (let hops = 0; parent && internal(parent) && hops < byId.size; hops++) parent = parent.parentSessionId ? byId.get(parent.parentSessionId) : undefined;
		if (parent) nodes.get(parent.sessionId)?.children.push(row);
	}
	return [...nodes.values()];
}
