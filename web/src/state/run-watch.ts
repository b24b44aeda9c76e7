/**
 * Which followed sessions ended a run, failed, or need the user (a paused goal, a failed job) since they last
 * looked, from pushed events alone: what the tab's title and icon show and what notifications announce. It
 * watches every session the page follows, not only the one shown. (Kept apart from the controller so that other
 * views, such as a session list's live state, can read the same marks.)
 */
import type { SkiffEvent } from "../../../src/client/index.js";
import type { PanelContext } from "./panel-context.js";

/** What happened that the user has not acknowledged: `attention` is a failure or a pause. */
export type RunMark = "done" | "attention";

/** One piece of news: a run ended, or something needs the user; `what` is the sentence to show. */
export interface RunNews {
	sessionId: string;
	mark: RunMark;
	what: string;
}

const PAUSES: Record<string, string> = {
	manual: "The goal was paused.",
	budget_exhausted: "The goal paused: its token budget is spent.",
	resume_safety: "The goal paused when the session was opened again.",
};

export class RunWatch {
	private readonly marks = new Map<string, RunNews>();
	/** The latest reply of a run ended in an error: the run failed. */
	private readonly failures = new Map<string, string>();
	private readonly reportedJobs = new Set<string>();
	private readonly listeners = new Set<(news?: RunNews) => void>();

	constructor(private readonly context: PanelContext) {
		context.client.onEvent((event) => this.onEvent(event));
	}

	/** The unacknowledged news of a session. */
	mark(sessionId: string | undefined): RunNews | undefined {
		return sessionId === undefined ? undefined : this.marks.get(sessionId);
	}

	/** The newest news of any session but `except` (the one shown), attention first. */
	other(except: string | undefined): RunNews | undefined {
		const rest = [...this.marks.values()].filter((news) => news.sessionId !== except).reverse();
		return rest.find((news) => news.mark === "attention") ?? rest[0];
	}

	/** The user has seen the session (came back to it, acted in it). */
	seen(sessionId: string | undefined): void {
		if (sessionId !== undefined && this.marks.delete(sessionId)) this.changed();
	}

	/**
	 * Calls `listener` at once with each piece of news, and without one when a run starts or news was seen: not at
	 * the next frame, as views re-render, since a hidden tab draws no frames and its title must change all the same.
	 */
	onChange(listener: (news?: RunNews) => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	private onEvent(event: SkiffEvent): void {
		const id = event.sessionId;
		if (event.type === "agent_start") {
			this.failures.delete(id);
			this.marks.delete(id);
			this.changed();
		} else if (event.type === "message_end" && event.message.role === "assistant" && event.message.stopReason === "error") {
			this.failures.set(id, event.message.errorMessage ?? "unknown error");
		} else if (event.type === "agent_end") {
			const failure = this.failures.get(id);
			this.failures.delete(id);
			this.report(failure === undefined ? { sessionId: id, mark: "done", what: "The run is done." } : { sessionId: id, mark: "attention", what: `The run failed: ${failure}` });
		} else if (event.type === "goal_updated" && event.operation === "paused") {
			this.report({ sessionId: id, mark: "attention", what: PAUSES[event.state.goal?.pauseReason ?? "manual"] ?? PAUSES.manual });
		} else if (event.type === "job_updated" && event.job.status === "failed" && !this.reportedJobs.has(`${id} ${event.job.id}`)) {
			// Published on every session above the job: each of them is told once.
			this.reportedJobs.add(`${id} ${event.job.id}`);
			this.report({ sessionId: id, mark: "attention", what: `A job failed (${event.job.agent}): ${event.job.error ?? "no reason given"}` });
		}
	}

	private report(news: RunNews): void {
		// A failure or a pause is not hidden by a run that merely ended after it.
		if (news.mark === "done" && this.marks.get(news.sessionId)?.mark === "attention") return;
		this.marks.delete(news.sessionId); // the newest last
		this.marks.set(news.sessionId, news);
		this.changed(news);
	}

	private changed(news?: RunNews): void {
		this.context.changed();
		for (const listener of this.listeners) listener(news);
	}
}
