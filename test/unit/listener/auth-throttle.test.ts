import assert from "node:assert/strict";
import { test } from "node:test";
import { AuthThrottle, MAX_TRACKED_WINDOWS } from "../../../src/listener/auth-throttle.js";
import { authorizeRequest } from "../../../src/listener/auth.js";

test("an address is throttled after maxFailures within the window, for the rest of that window only", () => {
	let now = 0;
	const throttle = new AuthThrottle({ maxFailures: 3, windowMs: 60_000 }, () => now);
	assert.equal(throttle.retryAfterMs("control", "a"), 0);
	assert.equal(throttle.recordFailure("control", "a"), false);
	now = 10_000;
	assert.equal(throttle.recordFailure("control", "a"), false);
	assert.equal(throttle.retryAfterMs("control", "a"), 0, "two failures: not throttled");
	assert.equal(throttle.recordFailure("control", "a"), true, "the third failure starts the throttle");
	assert.equal(throttle.retryAfterMs("control", "a"), 50_000, "until the window that began at the first failure ends");
	assert.equal(throttle.retryAfterMs("control", "b"), 0, "other addresses are not affected");
	now = 59_999;
	assert.equal(throttle.retryAfterMs("control", "a"), 1);
	now = 60_000;
	assert.equal(throttle.retryAfterMs("control", "a"), 0, "a new window starts clean");
	assert.equal(throttle.recordFailure("control", "a"), false);
});

test("each kind of credential is counted apart: guests' failures never throttle the control plane, nor the reverse", () => {
	const throttle = new AuthThrottle({ maxFailures: 2, windowMs: 60_000 }, () => 0);
	throttle.recordFailure("guest", "a");
	assert.equal(throttle.recordFailure("guest", "a"), true);
	assert.ok(throttle.retryAfterMs("guest", "a") > 0);
	assert.equal(throttle.retryAfterMs("control", "a"), 0, "the control plane of the same address");
	throttle.recordFailure("control", "b");
	throttle.recordFailure("control", "b");
	assert.ok(throttle.retryAfterMs("control", "b") > 0);
	assert.equal(throttle.retryAfterMs("guest", "b"), 0, "guests of the same address");
});

test("the windows remembered are bounded", () => {
	let now = 0;
	const throttle = new AuthThrottle({ maxFailures: 1, windowMs: 1000 }, () => now);
	for (let i = 0; i < MAX_TRACKED_WINDOWS / 2; i++) {
		throttle.recordFailure("control", `10.0.${i >> 8}.${i & 255}`);
		throttle.recordFailure("guest", `10.0.${i >> 8}.${i & 255}`);
	}
	assert.ok(throttle.retryAfterMs("control", "10.0.0.0") > 0);
	throttle.recordFailure("control", "newcomer");
	assert.ok(throttle.retryAfterMs("control", "newcomer") > 0);
	assert.equal(throttle.retryAfterMs("control", "10.0.0.0"), 0, "the oldest window was forgotten to make room");
	assert.ok(throttle.retryAfterMs("guest", "10.0.0.0") > 0, "and only that one");
	now = 5000;
	throttle.recordFailure("guest", "later");
	assert.ok(throttle.retryAfterMs("guest", "later") > 0, "expired windows make room first");
});

test("a repeated Authorization header is refused before any token is compared", () => {
	const decision = authorizeRequest(
		{ loopback: true, token: "t" },
		{ headers: { authorization: "Bearer t" }, rawHeaders: ["Authorization", "Bearer t", "authorization", "Bearer x"] },
		{ websocket: false },
	);
	assert.deepEqual(decision, { ok: false, status: 400, reason: "bad request: repeated Authorization header" });
});
