/** The todo plan feature's service: a plan for each session, found again by session id. */
import { PerSessionService } from "../session-features.js";
import { TodoSession } from "./session.js";

export class TodoService extends PerSessionService<TodoSession> {
	constructor() {
		super("todo plan", () => new TodoSession());
	}
}
