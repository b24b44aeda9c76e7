/**
 * The one place that reads a session's run from pushed events (`runFacts`): what each event says of which session.
 * From those facts, which followed sessions ended a run, failed, or need the user (a paused goal, a failed job)
 * since they last looked: what the tab's title and icon show and what notifications announce. It watches every
 * session the page follows, not only the one shown. The session list's live state reads the same facts
 * (`onFact`, session-live.ts).
 */
import type { SkiffEvent } from "../../../src/client/index.js";
import type { PanelContext } from "./panel-context.js";

type Job = Extract<SkiffEvent, { type: "job_updated" }>["job"];

/**
 * What an event says of a session's run: it started, a reply failed, it ended; its goal paused (why) or moved on
 * otherwise (resumed, completed, dropped); a job of it changed (the job's own session with it); it left memory.
 */
export type RunFact =
	| { type: "start" | "end" }
	| { type: "failed"; error: string }
	| { type: "goal"; paused?: string }
	| { type: "job"; job: Job }
	| { type: "unloaded"; deleted: boolean };

function runFact(event: SkiffEvent): RunFact | undefined {
	switch (event.type) {
		case "agent_start":
			return { type: "start" };
		case "agent_end":
			return { type: "end" };
		case "message_end":
			return event.message.role === "assistant" && event.message.stopReason === "error" ? { type: "failed", error: event.message.errorMessage ?? "unknown error" } : undefined;
		case "goal_updated":
			return { type: "goal", paused: event.operation === "paused" ? (event.state.goal?.pauseReason ?? "manual") : undefined };
		case "job_updated":
			return { type: "job", job: event.job };
		case "session_unloaded":
			return { type: "unloaded", deleted: event.reason === "deleted" };
	}
}

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
	private readonly factListeners = new Set<(sessionId: string, fact: RunFact) => void>();

	constructor(private readonly context: PanelContext) {
		context.client.onEvent((event) => {
			const fact = runFact(event);
			if (!fact) return;
			this.news(event.sessionId, fact);
			for (const listener of this.factListeners) listener(event.sessionId, fact);
		});
	}

	/** Calls `listener` with what each event says of a session's run, after this watch's own news. */
	onFact(listener: (sessionId: string, fact: RunFact) => void): void {
		this.factListeners.add(listener);
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

	/** The news a fact makes. */
	private news(id: string, fact: RunFact): void {
		if (fact.type === "start") {
			this.failures.delete(id);
			this.marks.delete(id);
			this.changed();
		} else if (fact.type === "failed") {
			this.failures.set(id, fact.error);
		} else if (fact.type === "end") {
			const failure = this.failures.get(id);
			this.failures.delete(id);
			this.report(failure === undefined ? { sessionId: id, mark: "done", what: "The run is done." } : { sessionId: id, mark: "attention", what: `The run failed: ${failure}` });
		} else if (fact.type === "goal" && fact.paused) {
			this.report({ sessionId: id, mark: "attention", what: PAUSES[fact.paused] ?? PAUSES.manual });
		} else if (fact.type === "job" && fact.job.status === "failed" && !this.reportedJobs.has(`${id} ${fact.job.id}`)) {
			// Published on every session above the job: each of them is told once.
			this.reportedJobs.add(`${id} ${fact.job.id}`);
			this.report({ sessionId: id, mark: "attention", what: `A job failed (${fact.job.agent}): ${fact.job.error ?? "no reason given"}` });
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
