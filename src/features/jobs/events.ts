/** The jobs' event: published on the spawning session's stream and on every session above it. */
import { defineEvent } from "../../protocol/event.js";
import { JobSchema } from "./schemas.js";

export const jobUpdatedEvent = defineEvent(
	"job_updated",
	"A job changed: it was queued, started, finished (`completed`, `failed`, `cancelled`, `interrupted`), or its live " +
		"activity moved (the tool it runs, turns, tokens). Published on the session that spawned it and every session above.",
	{ job: JobSchema },
);

export const jobEvents = [jobUpdatedEvent];
