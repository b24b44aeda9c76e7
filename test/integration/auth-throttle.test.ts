/**
 * Failed authentication is logged without secrets and throttled per client address: after a few failures
 * in a window the address's failing attempts get 429 until the window ends, while the right token is still
 * admitted from it (issue 20: behind a proxy, the owner shares the guesser's address); other addresses are
 * not affected. The clock is injected, so the window passes at once.
 */
import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, test } from "node:test";
import { type ListenerHarness, startHarness } from "../support/listener-harness.js";
import { type HttpResult } from "../support/http.js";
import { TestClient } from "../support/ws-client.js";

const TOKEN = "throttle-test-token";
const GUESS = "wrong-guess-4711";
const FAILURES = 3;
const WINDOW_MS = 60_000;

let harness: ListenerHarness;
let now = 1_000_000;

before(async () => {
	harness = await startHarness({
		auth: { loopback: true, token: TOKEN },
		limits: { authFailuresPerWindow: FAILURES, authWindowMs: WINDOW_MS },
		now: () => now,
	});
});
after(() => harness.close());

/** POST /rpc ping from a chosen local address, with this bearer token (or none). */
function ping(from: string, token?: string): Promise<HttpResult> {
	return new Promise((resolve, reject) => {
		const headers: Record<string, string> = { "content-type": "application/json", "user-agent": "secret-agent-header" };
		if (token !== undefined) headers.authorization = `Bearer ${token}`;
		const req = request(`${harness.url}/rpc`, { method: "POST", headers, localAddress: from, agent: false }, (res) => {
			let body = "";
			res.setEncoding("utf8");
			res.on("data", (d) => (body += d));
			res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
		});
		req.on("error", reject);
		req.end(JSON.stringify({ type: "ping" }));
	});
}

async function wsStatus(token: string): Promise<number> {
	try {
		(await TestClient.connect(harness.wsUrl, { protocols: [`skiff-auth.${token}`] })).close();
		return 101;
	} catch (error) {
		return (error as { status?: number }).status ?? -1;
	}
}

// Issue 20 changed the right token's answer while throttled from 429 to admitted: refusing it was a lock-out.
test("after a few failures an address's failing attempts get 429 with Retry-After until the window ends; the right token still gets in", async () => {
	for (let i = 0; i < FAILURES; i++) assert.equal((await ping("127.0.0.2", GUESS)).status, 401);
	const throttled = await ping("127.0.0.2", GUESS);
	assert.equal(throttled.status, 429);
	assert.equal(throttled.headers["retry-after"], String(WINDOW_MS / 1000));
	assert.match(throttled.body, /too many failed authentication attempts/);
	assert.equal((await ping("127.0.0.2")).status, 429);
	assert.equal((await ping("127.0.0.2", TOKEN)).status, 200, "the owner, from the same address");

	// Another address is not affected, and no success lifts the throttle.
	assert.equal((await ping("127.0.0.1", GUESS)).status, 401);
	assert.equal(await wsStatus(TOKEN), 101);
	assert.equal((await ping("127.0.0.2", GUESS)).status, 429);

	now += WINDOW_MS / 2;
	const later = await ping("127.0.0.2", GUESS);
	assert.equal(later.status, 429);
	assert.equal(later.headers["retry-after"], String(WINDOW_MS / 2000), "Retry-After counts down");
	now += WINDOW_MS / 2;
	assert.equal((await ping("127.0.0.2", GUESS)).status, 401, "a new window starts clean");
});

test("the throttle covers /ws too, and loopback clients like any other", async () => {
	now += WINDOW_MS;
	for (let i = 0; i < FAILURES; i++) assert.equal(await wsStatus(GUESS), 401);
	assert.equal(await wsStatus(GUESS), 429);
	assert.equal(await wsStatus(TOKEN), 101, "the right token still opens a socket");
	assert.equal((await ping("127.0.0.1", GUESS)).status, 429);
	assert.equal((await ping("127.0.0.1", TOKEN)).status, 200);
	assert.equal((await ping("127.0.0.3", GUESS)).status, 401);
	now += WINDOW_MS;
	assert.equal(await wsStatus(GUESS), 401);
});

test("each failure is logged with address, route and reason, never a credential or header value", async () => {
	const failures = harness.logs.filter((l) => /authentication failed/.test(l));
	assert.ok(failures.length >= FAILURES * 2);
	assert.ok(failures.some((l) => l.includes("127.0.0.2") && l.includes("/rpc") && /invalid token/.test(l)));
	assert.ok(failures.some((l) => l.includes("127.0.0.1") && l.includes("/ws")));
	assert.ok(harness.logs.some((l) => /127\.0\.0\.2.*429/.test(l)), "the throttle engaging is logged");
	for (const line of harness.logs) {
		assert.doesNotMatch(line, new RegExp(`${TOKEN}|${GUESS}|secret-agent-header|Bearer`), line);
		assert.doesNotMatch(line, /\n./, "one line each");
	}
});
