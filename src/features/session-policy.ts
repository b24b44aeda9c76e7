/**
 * Which sessions get which features: each module says which kinds of session it serves; a session's kind comes
 * from where it was opened. Top-level sessions get every feature that serves them (memory, goal, todo, the `task`
 * tool); a job's child or a persona's run gets what serves agents (memory and a todo plan).
 */
import type { SessionContribution, SessionOrigin } from "../agent/types.js";
import type { SessionKind } from "./module.js";
import { combineSessionFeatures } from "./session-features.js";
import type { StartedFeature } from "./start.js";

/** A session opened with an agent profile is a job's child, a persona's run when it has a persona's root. */
export function sessionKindOf(origin: SessionOrigin): SessionKind {
	if (!origin.profile) return "top-level";
	return origin.personaRoot ? "persona" : "job";
}

/** What the runtime asks for each session it opens: the features serving its kind, combined in the list's order. */
export function sessionFeaturesFor(started: readonly StartedFeature[]): (origin: SessionOrigin) => SessionContribution {
	return (origin) => {
		const kind = sessionKindOf(origin);
		const parts = started.flatMap(({ module, service }) =>
			module.sessions?.serves.includes(kind) && service !== undefined ? [module.sessions.contribute(service, origin)] : [],
		);
		return {
			features: combineSessionFeatures(parts.map((part) => part.features)),
			attach: (sessionId) => {
				for (const part of parts) part.attach?.(sessionId);
			},
		};
	};
}
