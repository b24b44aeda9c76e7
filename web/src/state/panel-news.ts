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
	/** The panel the user is looking at: news there is seen at once. */
	private showing: string | undefined;

	constructor(private readonly context: PanelContext) {
		context.client.on("job_updated", (event) => {
			const was = this.jobStatus.get(event.job.id);
			this.jobStatus.set(event.job.id, event.job.status);
			if (event.sessionId !== context.sessionId() || !FINISHED.has(event.job.status) || (was && FINISHED.has(was))) return;
			const done = (this.count("jobs") ?? 0) + 1;
			this.mark("jobs", done === 1 ? "a job finished" : `${done} jobs finished`);
		});
		context.client.on("goal_updated", (event) => {
			if (event.sessionId !== context.sessionId()) return;
			if (event.state.goal?.lifecycle === "paused") this.mark("goal", "the goal is paused");
			else if (this.news.has("goal")) this.seen("goal");
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

	private count(panelId: string): number | undefined {
		const text = this.news.get(panelId);
		return text === undefined ? undefined : Number.parseInt(text, 10) || 1;
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
