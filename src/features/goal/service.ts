/** The goal feature's service: a goal for each session, found again by session id (a reopened one is paused). */
import { PerSessionService } from "../session-features.js";
import { GoalSession } from "./session.js";

export class GoalService extends PerSessionService<GoalSession> {
	constructor() {
		super("goal", () => new GoalSession(), (goal) => goal.attached());
	}
}
