/** How the client explains a connection that did not open. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { describeHandshake, describeNetworkError, REFUSED_OR_DOWN } from "../../../src/client/refusal.js";

test("HTTP statuses of a refused upgrade tell a refused token from other refusals", () => {
	const refused = describeHandshake(401, "unauthorized: missing or invalid token\n", true);
	assert.equal(refused.kind, "unauthorized");
	assert.equal(refused.final, true);
	assert.equal(refused.message, "the service refused the token (HTTP 401: unauthorized: missing or invalid token)");
	assert.match(describeHandshake(401, "", false).message, /requires a token \(HTTP 401\)/);
	assert.equal(describeHandshake(403, "forbidden: cross-origin", false).kind, "forbidden");
	const throttled = describeHandshake(429, "", true);
	assert.equal(throttled.kind, "throttled");
	// Issue 20: the service admits a valid token even from a throttled address, so a 429 means this client's own
	// attempt was refused; retrying it unchanged cannot help.
	assert.equal(throttled.final, true, "a throttled address's valid tokens are admitted: the refusal is this client's own");
	assert.match(throttled.message, /refused this client, and too many failed authentications came from its address \(HTTP 429\)/);
	assert.equal(describeHandshake(502, "x".repeat(5000), false).message.length < 300, true, "a long body is cut");
});

test("network errors say the service is not reachable; anything else is left to the browser's vague reason", () => {
	const refusal = describeNetworkError("ws://127.0.0.1:1/ws", { code: "ECONNREFUSED", message: "connect ECONNREFUSED 127.0.0.1:1" });
	assert.equal(refusal?.kind, "unreachable");
	assert.equal(refusal?.message, "the service is not reachable at ws://127.0.0.1:1/ws (connect ECONNREFUSED 127.0.0.1:1)");
	assert.equal(describeNetworkError("ws://x/ws", { message: "WebSocket was closed before the connection was established" }), undefined);
	assert.equal(REFUSED_OR_DOWN.kind, "refused_or_down");
	assert.match(REFUSED_OR_DOWN.message, /wrong token\?.*not running/);
});
