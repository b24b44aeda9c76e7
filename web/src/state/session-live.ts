/**
 * Each session's live state as the session list shows it: running, or needing attention (its run failed, its
 * goal paused, a job of it failed), else idle. From the run facts of pushed events (run-watch.ts reads them, for
 * the tab's news too), never polled: the page follows every loaded session of the list (a `get_state` makes the
 * connection follow it, and says whether it runs now; `goal_get` whether its goal was paused before the page
 * looked), a session not loaded cannot change, so the list's row says whether its file's goal is paused, and a
 * job's session is known from `job_updated`, which its parent's followers get.
 */
import type { SessionSummary } from "../../../src/client/index.js";
import type { PanelContext } from "./panel-context.js";
import type { RunFact, RunWatch } from "./run-watch.js";

export type LiveState = { state: "running" } | { state: "attention"; why: string };

export class SessionLive {
	private readonly live = new Map<string, LiveState>();
	/** Loaded sessions already asked for their state (followed from then on). */
	private readonly asked = new Set<string>();
	/** Sessions flagged from their row (or seen since): a paused goal on disk is flagged once per page. */
	private readonly filed = new Set<string>();
	private queue: Promise<unknown> = Promise.resolve();

	constructor(
		private readonly context: PanelContext,
		runs: RunWatch,
	) {
		runs.onFact((sessionId, fact) => this.onFact(sessionId, fact));
		// Runs may have ended unseen while disconnected (a restart ends them all): what runs is asked again.
		context.client.onStatus(({ status }) => {
			if (status === "connected") return;
			this.asked.clear();
			for (const [id, live] of this.live) if (live.state === "running") this.live.delete(id);
		});
	}

	/** A session's state (undefined: idle). The one shown needs no flag: what happens there is in view. */
	get(sessionId: string): LiveState | undefined {
		const live = this.live.get(sessionId);
		if (live?.state === "attention" && sessionId === this.context.sessionId()) return void (this.live.delete(sessionId), this.filed.add(sessionId));
		return live;
	}

	/** Follows the loaded sessions of a list (once per connection), and notes which of them run now or have a paused goal. */
	watch(rows: readonly SessionSummary[]): void {
		const { client } = this.context;
		for (const { sessionId, loaded, kind, goal: filedGoal } of rows) {
			// Not loaded, it cannot change: its row says whether its file's goal is paused (flagged once per page).
			if (!loaded && filedGoal?.lifecycle === "paused" && !this.filed.has(sessionId)) {
				this.filed.add(sessionId);
				this.onFact(sessionId, { type: "goal", paused: filedGoal.pauseReason });
			}
			if (!loaded || this.asked.has(sessionId)) continue;
			this.asked.add(sessionId);
			// One session at a time: a socket has few commands in flight (16), and the page's own must not be refused.
			// Only a user's sessions have a goal (a job's or a workflow's refuse goal_get).
			const goal = kind === "user" || kind === "fork";
			this.queue = this.queue.then(() =>
				Promise.all([client.call("get_state", {}, { sessionId }), goal ? client.call("goal_get", {}, { sessionId }) : undefined]).then(
					([{ isStreaming }, view]) => {
						const live = this.live.get(sessionId);
						if (isStreaming ? !live : live?.state === "running") this.set(sessionId, isStreaming ? { state: "running" } : undefined);
						if (view?.goal?.lifecycle === "paused") this.onFact(sessionId, { type: "goal", paused: view.goal.pauseReason });
					},
					() => this.asked.delete(sessionId),
				),
			);
		}
	}

	private set(sessionId: string, live: LiveState | undefined): void {
		if (live) this.live.set(sessionId, live);
		else this.live.delete(sessionId);
		this.context.changed();
	}

	private attention(sessionId: string, why: string): void {
		if (sessionId !== this.context.sessionId()) this.set(sessionId, { state: "attention", why });
	}

	private onFact(sessionId: string, fact: RunFact): void {
		const live = this.live.get(sessionId);
		switch (fact.type) {
			case "start":
				return this.set(sessionId, { state: "running" });
			case "end":
				return live?.state === "running" ? this.set(sessionId, undefined) : undefined;
			case "failed":
				return this.attention(sessionId, "its run failed");
			case "goal":
				if (fact.paused) this.attention(sessionId, "its goal is paused");
				else if (live?.state === "attention" && live.why.includes("goal")) this.set(sessionId, undefined);
				return;
			case "job": {
				const { job } = fact;
				const failed = job.status === "failed" || job.status === "interrupted";
				if (job.sessionId) this.set(job.sessionId, job.status === "running" ? { state: "running" } : failed ? { state: "attention", why: "it failed" } : undefined);
				if (failed) this.attention(sessionId, "a job failed");
				return;
			}
			case "unloaded":
				this.asked.delete(sessionId);
				if (live?.state === "running" || fact.deleted) this.set(sessionId, undefined);
				return;
		}
	}
}

/** What a list says of a live state (the tag's text; the tooltip says why). */
export function liveLabel(live: LiveState | undefined): string | undefined {
	return live && (live.state === "running" ? "running" : "needs attention");
}
