/**
 * A search of titles and message text of every project's sessions (`session_search`), for the Sessions panel's
 * box and the Ctrl+K switcher's: asked once typing pauses; an answer overtaken by newer typing is dropped, so
 * what shows always fits the box.
 */
import type { CommandResult } from "../../../src/client/index.js";
import { failureText, type PanelContext } from "./panel-context";

/** How long typing must pause before the service is asked (each search reads session files). */
const DEBOUNCE_MS = 250;

export type SearchHit = CommandResult<"session_search">["hits"][number];
export type SearchResult = { state: "searching" } | { state: "done"; hits: SearchHit[]; truncated: boolean } | { state: "failed"; error: string };

export class SessionSearch {
	query = "";
	result: SearchResult | undefined;
	private timer: ReturnType<typeof setTimeout> | undefined;
	/** Bumped with every change of the query: only the latest search's answer is shown. */
	private asked = 0;

	/** `limit`: the most hits asked for (the service's default, 50, without it). */
	constructor(
		private readonly context: PanelContext,
		private readonly limit?: number,
	) {}

	/** The box's text: searches once typing pauses; an empty box shows the list again. */
	set(query: string): void {
		this.query = query;
		clearTimeout(this.timer);
		const asked = ++this.asked;
		this.result = query.trim() ? { state: "searching" } : undefined;
		if (this.result) this.timer = setTimeout(() => void this.run(query.trim(), asked), DEBOUNCE_MS);
		this.context.changed();
	}

	/** Asks again now (after a failure). */
	retry(): void {
		void this.run(this.query.trim(), ++this.asked);
	}

	private async run(query: string, asked: number): Promise<void> {
		let result: SearchResult;
		try {
			const found = await this.context.client.call("session_search", { query, scope: "all", limit: this.limit });
			result = { state: "done", hits: found.hits, truncated: found.truncated };
		} catch (error) {
			result = { state: "failed", error: failureText(error) };
		}
		if (asked !== this.asked) return;
		this.result = result;
		this.context.changed();
	}
}
