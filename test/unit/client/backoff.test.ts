import assert from "node:assert/strict";
import { test } from "node:test";
import { BACKOFF_CAP_MS, BACKOFF_START_MS, backoffDelay } from "../../../src/client/backoff.js";

test("the reconnect wait starts at 1 s and doubles each attempt", () => {
	assert.equal(BACKOFF_START_MS, 1000);
	assert.deepEqual([0, 1, 2, 3].map(backoffDelay), [1000, 2000, 4000, 8000]);
});

test("the reconnect wait stops growing at 15 s", () => {
	assert.equal(BACKOFF_CAP_MS, 15_000);
	assert.deepEqual([4, 5, 6, 10].map(backoffDelay), [15_000, 15_000, 15_000, 15_000]);
	assert.equal(backoffDelay(2000), 15_000, "no overflow after a very long outage");
});
