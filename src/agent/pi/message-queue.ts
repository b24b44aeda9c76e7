/**
 * Waiting steering and follow-up messages. Removing one before the agent takes it: pi can only clear its queues
 * whole; it keeps each queue twice, in step: the texts it reports (`queue_update`) on the AgentSession, and the
 * messages themselves (with their images) on the Agent, which takes them from the front. Between the agent
 * taking a message and pi announcing it (`message_start`), the texts hold it and the agent's queue does not:
 * the agent's queue is always the tail of the texts. Removing item `index` removes it from both, so the rest
 * are delivered unchanged, images included, and nothing is re-queued.
 */
import { CodedError } from "../../shared/errors.js";
import type { AgentSession } from "@mariozechner/pi-coding-agent";
import type { QueueKind } from "../types.js";

/** The parts of pi's AgentSession and Agent that hold the queues (not in their public typings). */
interface QueueInternals {
	_steeringMessages: string[];
	_followUpMessages: string[];
	agent: { steeringQueue: { messages: unknown[] }; followUpQueue: { messages: unknown[] } };
}

/** Removes and returns the waiting message `index` of a queue; throws when there is none or it is being delivered. */
export function removeQueued(session: AgentSession, kind: QueueKind, index: number): string {
	const internals = session as unknown as QueueInternals;
	const texts = kind === "steering" ? internals._steeringMessages : internals._followUpMessages;
	const queue = (kind === "steering" ? internals.agent?.steeringQueue : internals.agent?.followUpQueue)?.messages;
	if (!Array.isArray(texts) || !Array.isArray(queue)) throw new Error("pi AgentSession internals changed: queue_cancel needs updating");
	const name = kind === "steering" ? "steering" : "follow-up";
	if (index >= texts.length) {
		throw new CodedError("not_found", `No ${name} message at index ${index}: ${texts.length} waiting (see queue_list)`);
	}
	const taken = texts.length - queue.length; // at the front: taken by the agent, not yet announced
	const position = index - taken;
	if (position < 0 || textOf(queue[position]) !== texts[index]) {
		throw new CodedError("conflict", `The ${name} message at index ${index} is being delivered already; it can no longer be cancelled`);
	}
	const [text] = texts.splice(index, 1);
	queue.splice(position, 1);
	return text!;
}

/** The text of a queued user message (pi queues `{role: "user", content: [{type: "text", text}, ...images]}`). */
function textOf(message: unknown): string | undefined {
	const content = (message as { content?: unknown } | undefined)?.content;
	if (!Array.isArray(content)) return undefined;
	const first = content[0] as { type?: unknown; text?: unknown } | undefined;
	return first?.type === "text" && typeof first.text === "string" ? first.text : undefined;
}

/** Whether a run ended well: its last reply was neither aborted nor failed. */
export function endedWell(messages: readonly unknown[]): boolean {
	const last = [...messages].reverse().find((m) => (m as { role?: unknown }).role === "assistant") as { stopReason?: unknown } | undefined;
	return last !== undefined && last.stopReason !== "error" && last.stopReason !== "aborted";
}
