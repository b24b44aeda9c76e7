/**
 * What a panel has that the user has not seen: a job of the current session finished, or its goal paused.
 * The rail marks such a panel with a badge until it is shown. It follows the events itself (job_updated,
 * goal_updated), because the Jobs and Goal states read their lists only while their panel is open.
 */
import { FINISHED } from "./jobs-state";
import type { PanelContext } from "./panel-context";

export class PanelNews {
	/** Panel id → what happened there, in words (the badge's tooltip and spoken text). */
	private readonly news = new Map<string, string>();
	/** The last status seen of each job, so a finished job counts once, when it finishes. */
	private readonly jobStatus = new Map<string, string>();
	/** The last lifecycle seen of each session's goal, so a pause counts once, when it happens. */
	private readonly goalLifecycle = new Map<string, string | undefined>();
	/** Jobs finished since the Jobs panel was last shown. */
	private finishedJobs = 0;
	/** The panel the user is looking at: news there is seen at once. */
	private showing: string | undefined;

	constructor(private readonly context: PanelContext) {
		context.client.on("job_updated", (event) => {
			const was = this.jobStatus.get(event.job.id);
			this.jobStatus.set(event.job.id, event.job.status);
			if (event.sessionId !== context.sessionId() || !FINISHED.has(event.job.status) || (was && FINISHED.has(was))) return;
			if (this.showing === "jobs") return;
			this.finishedJobs = this.news.has("jobs") ? this.finishedJobs + 1 : 1;
			this.mark("jobs", this.finishedJobs === 1 ? "a job finished" : `${this.finishedJobs} jobs finished`);
		});
		context.client.on("goal_updated", (event) => {
			const lifecycle = event.state.goal?.lifecycle;
			const was = this.goalLifecycle.get(event.sessionId);
			this.goalLifecycle.set(event.sessionId, lifecycle);
			if (event.sessionId !== context.sessionId()) return;
			// Only as it pauses: a paused goal's other changes (a pin) are not news again.
			if (lifecycle === "paused" && was !== "paused") this.mark("goal", "the goal is paused");
			else if (lifecycle !== "paused") this.seen("goal");
		});
	}

	/** What a panel has new, if anything. */
	get(panelId: string): string | undefined {
		return this.news.get(panelId);
	}

	/** Whether any panel has news (the phone's Panels button shows it while the drawer is closed). */
	any(): string | undefined {
		return [...this.news.values()].join("; ") || undefined;
	}

	/** The user now looks at `panelId` (undefined: at no panel, e.g. the phone's drawer is closed). */
	show(panelId: string | undefined): void {
		this.showing = panelId;
		if (panelId) this.seen(panelId);
	}

	/** A new session is shown: what was new in the previous one is not news there. */
	reset(): void {
		if (this.news.size === 0) return;
		this.news.clear();
		this.context.changed();
	}

	private mark(panelId: string, text: string): void {
		if (panelId === this.showing) return;
		this.news.set(panelId, text);
		this.context.changed();
	}

	private seen(panelId: string): void {
		if (this.news.delete(panelId)) this.context.changed();
	}
}
