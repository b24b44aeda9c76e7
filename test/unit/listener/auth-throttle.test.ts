import assert from "node:assert/strict";
import { test } from "node:test";
import { AuthThrottle, MAX_TRACKED_ADDRESSES } from "../../../src/listener/auth-throttle.js";
import { authorizeRequest } from "../../../src/listener/auth.js";

test("an address is refused after maxFailures within the window, for the rest of that window only", () => {
	let now = 0;
	const throttle = new AuthThrottle({ maxFailures: 3, windowMs: 60_000 }, () => now);
	assert.equal(throttle.retryAfterMs("a"), 0);
	assert.equal(throttle.recordFailure("a"), false);
	now = 10_000;
	assert.equal(throttle.recordFailure("a"), false);
	assert.equal(throttle.retryAfterMs("a"), 0, "two failures: still allowed");
	assert.equal(throttle.recordFailure("a"), true, "the third failure starts the throttle");
	assert.equal(throttle.retryAfterMs("a"), 50_000, "until the window that began at the first failure ends");
	assert.equal(throttle.retryAfterMs("b"), 0, "other addresses are not affected");
	now = 59_999;
	assert.equal(throttle.retryAfterMs("a"), 1);
	now = 60_000;
	assert.equal(throttle.retryAfterMs("a"), 0, "a new window starts clean");
	assert.equal(throttle.recordFailure("a"), false);
});

test("the addresses remembered are bounded", () => {
	let now = 0;
	const throttle = new AuthThrottle({ maxFailures: 1, windowMs: 1000 }, () => now);
	for (let i = 0; i < MAX_TRACKED_ADDRESSES; i++) throttle.recordFailure(`10.0.${i >> 8}.${i & 255}`);
	assert.ok(throttle.retryAfterMs("10.0.0.0") > 0);
	throttle.recordFailure("newcomer");
	assert.ok(throttle.retryAfterMs("newcomer") > 0);
	assert.equal(throttle.retryAfterMs("10.0.0.0"), 0, "the oldest window was forgotten to make room");
	now = 5000;
	throttle.recordFailure("later");
	assert.ok(throttle.retryAfterMs("later") > 0, "expired windows make room first");
});

test("a repeated Authorization header is refused before any token is compared", () => {
	const decision = authorizeRequest(
		{ loopback: true, token: "t" },
		{ headers: { authorization: "Bearer t" }, rawHeaders: ["Authorization", "Bearer t", "authorization", "Bearer x"] },
		{ websocket: false },
	);
	assert.deepEqual(decision, { ok: false, status: 400, reason: "bad request: repeated Authorization header" });
});
