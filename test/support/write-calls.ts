/** The fake model's edit and write tool calls, and one turn's tool results, for the changes feature's tests. */
import assert from "node:assert/strict";
import { type Event, TestClient } from "./ws-client.js";

export const edit = (path: string, oldText: string, newText: string) => `CALL edit ${JSON.stringify({ path, edits: [{ oldText, newText }] })}`;
export const write = (path: string, content: string) => `CALL write ${JSON.stringify({ path, content })}`;

/**
 * Runs `calls` in one turn of a new session in `cwd`; the tool results in call order (pi runs the calls at once):
 * live (tool_execution_end) and as recorded (get_messages).
 */
export async function toolResults(client: TestClient, cwd: string, calls: string[]): Promise<{ live: Event[]; recorded: any[] }> {
	const { sessionId } = await client.ok({ type: "new_session", cwd });
	const events = await client.turn(sessionId, `${calls.join("\n")}\nAFTER_TOOL Done.`);
	const byCall = (a: any, b: any) => String(a.toolCallId).localeCompare(String(b.toolCallId), "en", { numeric: true });
	const live = events.filter((e) => e.type === "tool_execution_end").sort(byCall);
	assert.equal(live.length, calls.length);
	const { messages } = await client.ok({ type: "get_messages", sessionId });
	return { live, recorded: messages.filter((m: any) => m.role === "toolResult").sort(byCall) };
}
