/**
 * Why a run was stopped, as the page keeps it: `run_stopped` (a turn limit, the goal) names the aborted reply
 * the run ended with, which then says why instead of a bare "Stopped."; a reply the user aborted, or one that
 * ended otherwise, gets no reason.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Message, SkiffEvent } from "../../../src/client/index.js";
import { Transcript } from "../../../web/src/state/transcript.js";

function play(transcript: Transcript, events: Array<Record<string, unknown>>): void {
	for (const event of events) transcript.apply({ sessionId: "s", seq: transcript.lastSeq + 1, ...event } as unknown as SkiffEvent);
}

const reply = (stopReason: string) => ({
	type: "message_end",
	message: { role: "assistant", content: [], provider: "p", model: "m", usage: {}, stopReason, timestamp: 1 },
});
const stopped = { type: "run_stopped", reason: "turn_limit", message: "The run took 3 turns, its limit per run (session.maxTurnsPerRun)", turns: 3, limit: 3 };
const last = (transcript: Transcript): Message => transcript.messages.at(-1)!;

test("run_stopped gives the aborted reply the run ended with its reason", () => {
	const transcript = new Transcript("s");
	play(transcript, [{ type: "agent_start" }, reply("toolUse"), reply("aborted"), { type: "turn_end" }, stopped, { type: "agent_end", messageCount: 2 }]);
	assert.equal(transcript.stopReason(last(transcript)), stopped.message);
	assert.equal(transcript.stopReason(transcript.messages[0]!), undefined, "only the reply it ended with");
});

test("a reply the user aborted, or one that ended well, has no reason", () => {
	const transcript = new Transcript("s");
	play(transcript, [{ type: "agent_start" }, reply("aborted"), { type: "agent_end", messageCount: 1 }]);
	assert.equal(transcript.stopReason(last(transcript)), undefined);
	play(transcript, [{ type: "agent_start" }, reply("stop"), stopped, { type: "agent_end", messageCount: 1 }]);
	assert.equal(transcript.stopReason(last(transcript)), undefined, "not an aborted reply: nothing to explain");
});
