/**
 * `tree_changed` events of one session. Entries appended in one go (the same tick of the event loop) are
 * reported together, right after they are recorded, with their nodes, so a tree panel adds them without
 * fetching the tree again: about one event per message during a run, as many as `message_end`. A navigation
 * or a label change collects the entries it appends and reports them in its own event instead.
 */
import type { SessionEntry, SessionManager } from "@mariozechner/pi-coding-agent";
import type { RuntimeEvent, TreeNode } from "../types.js";
import type { SessionTreeView } from "./session-tree.js";

export class TreeEvents {
	private pending: object[] = [];
	private scheduled = false;
	/** Entries appended while a navigation or a label change runs: reported by its own event. */
	private collecting: object[] | undefined;

	constructor(
		private readonly view: SessionTreeView,
		private readonly manager: SessionManager,
		private readonly emit: (event: RuntimeEvent) => void,
	) {}

	/** An entry was appended (and recorded, if the session is recorded). */
	appended(entry: object): void {
		if (this.collecting) {
			this.collecting.push(entry);
			return;
		}
		this.pending.push(entry);
		if (this.scheduled) return;
		this.scheduled = true;
		queueMicrotask(() => this.flush());
	}

	/** Runs `work`, holding back the entries it appends; they are returned as nodes for the caller's own event. */
	async collect<T>(work: () => Promise<T>): Promise<{ result: T; nodes: TreeNode[] }> {
		const collected = this.begin();
		try {
			const result = await work();
			return { result, nodes: this.nodes(collected) };
		} catch (error) {
			this.release(collected); // whatever it appended before failing is still reported
			throw error;
		} finally {
			this.collecting = undefined;
		}
	}

	/** The same for synchronous work. */
	collectNow<T>(work: () => T): { result: T; nodes: TreeNode[] } {
		const collected = this.begin();
		try {
			return { result: work(), nodes: this.nodes(collected) };
		} catch (error) {
			this.release(collected);
			throw error;
		} finally {
			this.collecting = undefined;
		}
	}

	private begin(): object[] {
		this.flush(); // what was appended before goes out first, in order
		const collected: object[] = [];
		this.collecting = collected;
		return collected;
	}

	private release(collected: object[]): void {
		this.collecting = undefined;
		for (const entry of collected) this.appended(entry);
	}

	private nodes(entries: object[]): TreeNode[] {
		return entries.map((entry) => this.view.node(entry as SessionEntry));
	}

	private flush(): void {
		this.scheduled = false;
		if (this.pending.length === 0) return;
		const entries = this.pending;
		this.pending = [];
		this.emit({ type: "tree_changed", reason: "appended", leafId: this.manager.getLeafId(), nodes: this.nodes(entries), reload: false });
	}
}
