/** How long a job has run and what it is doing, as the Jobs panel and the delegation cards show it. */
import { useEffect, useState } from "preact/hooks";
import type { Job } from "../../../src/client/index.js";

/** The clock, ticking every second while `live` (jobs run). */
export function useNow(live: boolean): number {
	const [now, setNow] = useState(Date.now());
	useEffect(() => {
		if (!live) return;
		const timer = setInterval(() => setNow(Date.now()), 1000);
		return () => clearInterval(timer);
	}, [live]);
	return now;
}

/** Time since the job started (until it finished), e.g. "42s" or "3m 5s"; "waiting" while queued. */
export function elapsed(job: Job, now: number): string {
	if (!job.startedAt) return "waiting";
	const end = job.finishedAt ? Date.parse(job.finishedAt) : now;
	const seconds = Math.max(0, Math.round((end - Date.parse(job.startedAt)) / 1000));
	return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m ${seconds % 60}s`;
}

/** The tool running now (or waiting for its own jobs), turns and tokens. */
export function activity(job: Job): string {
	const { tool, turns, tokens, waiting } = job.activity;
	const now = tool ? `running ${tool}` : waiting ? "waiting for its jobs" : "";
	return [now, `${turns} turn${turns === 1 ? "" : "s"}`, `${tokens} tokens`].filter(Boolean).join(" · ");
}

/** A task's first line, cut to fit a row. */
export function firstLine(text: string): string {
	const line = text.trim().split("\n")[0] ?? "";
	return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
