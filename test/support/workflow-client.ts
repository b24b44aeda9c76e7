/** Driving workflows through a real service with the fake model: sessions, objectives that plan, and waiting for a status. */
import { type Event, TestClient } from "./ws-client.js";

/** A task line that makes the worker write a file. */
export const writes = (path: string, content: string) => `CALL write ${JSON.stringify({ path, content })}`;

/** An objective that makes the supervisor plan these phases. */
export const objective = (list: unknown) => `Do the work.\nCALL todo ${JSON.stringify({ op: "init", list })}\nAFTER_TOOL Planned.`;

/** A recorded session working in `cwd` (a session is recorded from its first message). */
export async function sessionIn(client: TestClient, cwd: string): Promise<string> {
	const { sessionId } = await client.ok({ type: "new_session", cwd });
	const from = client.events.length;
	await client.ok({ type: "prompt", sessionId, message: "REPLY ready" });
	await client.waitForEvent((e) => e.type === "agent_end" && e.sessionId === sessionId, 20_000, from);
	return sessionId;
}

/** The first `workflow_updated` (from event `from` on) that shows workflow `id` in `status`. */
export function workflowEvent(id: string, status: string, from: number, client: TestClient): Promise<Event> {
	return client.waitForEvent((e) => e.type === "workflow_updated" && e.workflow.id === id && e.workflow.status === status, 60_000, from);
}
