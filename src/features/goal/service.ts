/** The goal feature as the composition root sees it: a goal for each session, found again by session id. */
import { SessionStates } from "../session-features.js";
import { GoalSession } from "./session.js";

export class GoalService {
	private readonly sessions = new SessionStates<GoalSession>("goal");

	/** The goal of a session about to open (bound to it once open). */
	forSession(): GoalSession {
		return new GoalSession();
	}

	/** The session is loaded under this id: commands naming it reach its goal (and a reopened one pauses it). */
	attach(sessionId: string, goal: GoalSession): void {
		this.sessions.attach(sessionId, goal, goal.link);
		goal.attached();
	}

	of(sessionId: string): GoalSession {
		return this.sessions.get(sessionId);
	}
}
