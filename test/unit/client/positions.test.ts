/** The client's per-session bookkeeping of seq and epoch. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { SessionPositions } from "../../../src/client/positions.js";

test("events are accepted once each, in increasing seq; gaps are allowed", () => {
	const positions = new SessionPositions();
	assert.deepEqual(
		[1, 2, 2, 5, 4, 6].map((seq) => positions.accept("s", seq)),
		[true, true, false, true, false, true],
	);
	assert.equal(positions.lastSeq("s"), 6);
});

test("a snapshot covers events up to its seq, never moving back", () => {
	const positions = new SessionPositions();
	positions.accept("s", 3);
	positions.cover("s", 7);
	assert.equal(positions.accept("s", 7), false);
	positions.cover("s", 2);
	assert.equal(positions.lastSeq("s"), 7);
	assert.equal(positions.accept("s", 8), true);
});

test("after a resync the position restarts at the new numbering's seq, even a lower one", () => {
	const positions = new SessionPositions();
	positions.accept("s", 50);
	positions.restart("s", 3);
	assert.equal(positions.accept("s", 4), true);
});

test("resumes carry the epoch of the connection each seq was seen on, and none when it was never reported", () => {
	const positions = new SessionPositions();
	positions.newConnection();
	positions.accept("a", 5);
	positions.learnEpoch("E1");
	positions.accept("b", 2);
	assert.deepEqual(positions.resumes(), [
		{ sessionId: "a", sinceSeq: 5, epoch: "E1" },
		{ sessionId: "b", sinceSeq: 2, epoch: "E1" },
	]);
	positions.newConnection(); // a restarted service, say: its epoch is unknown until reported
	positions.accept("a", 6);
	assert.deepEqual(positions.resumes(), [
		{ sessionId: "a", sinceSeq: 6, epoch: undefined },
		{ sessionId: "b", sinceSeq: 2, epoch: "E1" },
	]);
	positions.learnEpoch("E2");
	assert.equal(positions.resumes()[0]!.epoch, "E2");
	assert.equal(positions.resumes()[1]!.epoch, "E1", "a seq from the earlier connection keeps its epoch");
});

test("a followed session without a seq resumes without one; unfollowed sessions are not resumed", () => {
	const positions = new SessionPositions();
	positions.learnEpoch("E1");
	positions.follow("new");
	positions.accept("closed", 1);
	positions.unfollow("closed");
	assert.deepEqual(positions.resumes(), [{ sessionId: "new", sinceSeq: undefined, epoch: undefined }]);
	assert.equal(positions.follows("closed"), false);
	assert.equal(positions.follows("new"), true);
});
