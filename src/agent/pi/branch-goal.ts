/**
 * The goal a session file's active branch leaves, read as a listing reads the file (entry by entry, in file
 * order): the goal's records on the branch from the last entry (where pi puts the leaf when it opens the file) up
 * to the root, replayed for their lifecycle (goal-record.ts). Parents are kept only from the first goal record
 * on: pi appends an entry after its parent, so the branch's earlier entries hold no record, and a file that never
 * had a goal keeps nothing.
 */
import { GOAL_ENTRY_TYPE, nextRecordedGoal, type RecordedGoal } from "../goal-record.js";

export class BranchGoal {
	private leaf: string | undefined;
	private parents: Map<string, string | undefined> | undefined;
	private readonly records = new Map<string, unknown>();

	/** One entry of the file after its header. */
	add(entry: { type?: unknown; id?: unknown; parentId?: unknown; customType?: unknown; data?: unknown }): void {
		if (typeof entry.id !== "string") return;
		this.leaf = entry.id;
		if (entry.type === "custom" && entry.customType === GOAL_ENTRY_TYPE) {
			this.parents ??= new Map();
			this.records.set(entry.id, entry.data);
		}
		this.parents?.set(entry.id, typeof entry.parentId === "string" ? entry.parentId : undefined);
	}

	/** The goal as the active branch's records leave it; undefined when the branch holds none. */
	goal(): RecordedGoal | undefined {
		const parents = this.parents;
		if (!parents) return undefined;
		const branch: unknown[] = [];
		// At most one step per entry kept, so that a damaged file whose parents loop cannot hold the listing.
		for (let id = this.leaf, steps = 0; id !== undefined && parents.has(id) && steps < parents.size; id = parents.get(id), steps++) {
			if (this.records.has(id)) branch.push(this.records.get(id));
		}
		let goal: RecordedGoal | undefined;
		for (let n = branch.length - 1; n >= 0; n--) {
			const next = nextRecordedGoal(goal, branch[n]);
			if (!next) break;
			goal = next.goal;
		}
		return goal;
	}
}
