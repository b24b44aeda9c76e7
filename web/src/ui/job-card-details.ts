/** A job card's details (the `job_card` message of a job's result), as the page reads them. */
import type { Job } from "../../../src/client/index.js";

/** What the service puts in a job card's details (older cards hold only the id, agent and status). */
export interface JobCardDetails {
	jobId?: string;
	agent?: string;
	status?: Job["status"];
	description?: string;
	summary?: string;
	yielded?: boolean;
	woke?: string;
}

/** The card's details, each kept only when of its type (a session file edited by hand must not break the page). */
export function cardDetails(raw: unknown): JobCardDetails {
	const found: Record<string, unknown> = raw && typeof raw === "object" ? (raw as Record<string, unknown>) : {};
	const details: Record<string, unknown> = {};
	for (const key of ["jobId", "agent", "status", "description", "summary", "woke"]) if (typeof found[key] === "string") details[key] = found[key];
	if (typeof found.yielded === "boolean") details.yielded = found.yielded;
	return details as JobCardDetails;
}
