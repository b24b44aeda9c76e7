/**
 * A transcript opened from a snapshot of its newest messages only (`get_messages` with `last`): it knows how many
 * older ones are missing, takes them in front once they arrive (after events have appended to it), and refuses
 * them when a later snapshot has replaced the partial one.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Message, SkiffEvent } from "../../../src/client/index.js";
import { Transcript } from "../../../web/src/state/transcript.js";

const user = (text: string) => ({ role: "user", content: [{ type: "text", text }], timestamp: 1 }) as unknown as Message;
const texts = (transcript: Transcript) => transcript.messages.map((m) => (m.content as Array<{ text: string }>)[0]!.text);
const all = ["m0", "m1", "m2", "m3", "m4"].map(user);

test("the newest messages, then the older ones in front of them and of what arrived meanwhile", () => {
	const transcript = new Transcript("s");
	transcript.load({ messages: all.slice(3), seq: 7, running: false, total: 5 });
	assert.equal(transcript.partial, true);
	assert.equal(transcript.offset, 3);
	const loaded = transcript.loaded;
	transcript.apply({ sessionId: "s", seq: 8, type: "message_end", message: user("m5") } as unknown as SkiffEvent);
	assert.deepEqual(texts(transcript), ["m3", "m4", "m5"]);
	const version = transcript.version;
	assert.equal(transcript.prependOlder(loaded, all.slice(0, 3)), true);
	assert.deepEqual(texts(transcript), ["m0", "m1", "m2", "m3", "m4", "m5"]);
	assert.equal(transcript.partial, false);
	assert.ok(transcript.version > version, "views see the change");
});

test("a whole snapshot is not partial; older messages for a replaced snapshot are refused", () => {
	const transcript = new Transcript("s");
	transcript.load({ messages: all, seq: 3, running: false, total: 5 });
	assert.equal(transcript.partial, false);
	transcript.load({ messages: all.slice(4), seq: 4, running: false, total: 5 });
	const partial = transcript.loaded;
	transcript.load({ messages: all.slice(1), seq: 5, running: false }); // e.g. the conversation moved: reloaded whole
	assert.equal(transcript.prependOlder(partial, all.slice(0, 4)), false);
	assert.deepEqual(texts(transcript), ["m1", "m2", "m3", "m4"]);
});
