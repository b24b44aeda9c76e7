/**
 * The page's record of queued messages at a run's end: what the queue still lists is delivered by the next run
 * (not given back); what left the queue untaken before agent_end was dropped and goes back to the composer.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { SkiffEvent } from "../../../src/client/index.js";
import { Transcript } from "../../../web/src/state/transcript.js";

/** Applies events in order, numbering them. */
function play(transcript: Transcript, events: Array<Record<string, unknown>>): void {
	for (const event of events) transcript.apply({ sessionId: "s", seq: transcript.lastSeq + 1, ...event } as unknown as SkiffEvent);
}

const queue = (steering: string[], followUp: string[] = []) => ({ type: "queue_update", steering, followUp });
const userMessage = (text: string) => ({ type: "message_start", message: { role: "user", content: [{ type: "text", text }], timestamp: 1 } });

test("a message still queued when the run ends is taken by the next run, not given back", () => {
	const transcript = new Transcript("s");
	play(transcript, [{ type: "agent_start" }, queue(["late"]), { type: "agent_end", messages: [] }]);
	assert.deepEqual(transcript.takeDropped(), []);
	assert.deepEqual(transcript.queued.steering, ["late"], "still shown as pending between the runs");
	play(transcript, [{ type: "agent_start" }, queue([]), userMessage("late"), { type: "agent_end", messages: [] }]);
	assert.deepEqual(transcript.takeDropped(), [], "taken: nothing to give back");
});

test("a message dropped as the run ends (its queue emptied before agent_end) is given back once", () => {
	const transcript = new Transcript("s");
	play(transcript, [{ type: "agent_start" }, queue(["first"], ["second"]), queue([], []), { type: "agent_end", messages: [] }]);
	assert.deepEqual(transcript.takeDropped(), ["first", "second"]);
	assert.deepEqual(transcript.takeDropped(), []);
});

test("a message left for the next run that then fails is given back when that run drops it", () => {
	const transcript = new Transcript("s");
	play(transcript, [{ type: "agent_start" }, queue(["late"]), { type: "agent_end", messages: [] }]);
	play(transcript, [{ type: "agent_start" }, queue([]), { type: "agent_end", messages: [] }]);
	assert.deepEqual(transcript.takeDropped(), ["late"]);
});
