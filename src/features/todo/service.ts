/** The todo plan feature as the composition root sees it: a plan for each session, found again by session id. */
import { SessionStates } from "../session-features.js";
import { TodoSession } from "./session.js";

export class TodoService {
	private readonly sessions = new SessionStates<TodoSession>("todo plan");

	/** The plan of a session about to open (bound to it once open). */
	forSession(): TodoSession {
		return new TodoSession();
	}

	/** The session is loaded under this id: commands naming it reach its plan. */
	attach(sessionId: string, todo: TodoSession): void {
		this.sessions.attach(sessionId, todo, todo.link);
	}

	of(sessionId: string): TodoSession {
		return this.sessions.get(sessionId);
	}
}
