import assert from "node:assert/strict";
import { test } from "node:test";
import { authorizeDownload, authorizeRequest, constantTimeEqual, type AuthPolicy } from "../../../src/listener/auth.js";

const TOKEN = "tok-123";
const req = (headers: Record<string, string>, raw?: string[]) => ({
	headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
	rawHeaders: raw ?? Object.entries(headers).flat(),
});
const tokened: AuthPolicy = { token: TOKEN, loopback: true };
const open: AuthPolicy = { loopback: true };
const remote: AuthPolicy = { loopback: false };

test("constant-time comparison", () => {
	assert.equal(constantTimeEqual("abc", "abc"), true);
	assert.equal(constantTimeEqual("abc", "abd"), false);
	assert.equal(constantTimeEqual("abc", "abcd"), false);
	assert.equal(constantTimeEqual("", ""), true);
	assert.equal(constantTimeEqual("", "a"), false);
});

test("bearer tokens", () => {
	const http = { websocket: false };
	assert.deepEqual(authorizeRequest(tokened, req({ Authorization: `Bearer ${TOKEN}` }), http), { ok: true, protocol: undefined });
	assert.deepEqual(authorizeRequest(tokened, req({ Authorization: `bEaReR ${TOKEN}` }), http), { ok: true, protocol: undefined });
	for (const value of ["", "Bearer", "Bearer ", `Bearer ${TOKEN}x`, `Bearer  ${TOKEN}`, `Bearer ${TOKEN} x`, `Token ${TOKEN}`, TOKEN]) {
		const decision = authorizeRequest(tokened, req({ Authorization: value }), http);
		assert.equal(decision.ok, false, value);
		assert.equal(!decision.ok && decision.status, 401);
		assert.doesNotMatch(!decision.ok ? decision.reason : "", /tok-123/);
	}
	assert.equal(authorizeRequest(tokened, req({}), http).ok, false);
});

test("subprotocol tokens: the first matching offer is chosen and echoed exactly", () => {
	const ws = { websocket: true };
	const offer = (list: string) => authorizeRequest(tokened, req({ "Sec-WebSocket-Protocol": list }), ws);
	assert.deepEqual(offer(`skiff-auth.${TOKEN}`), { ok: true, protocol: `skiff-auth.${TOKEN}` });
	assert.deepEqual(offer(`chat, skiff-auth.nope ,skiff-auth.${TOKEN}, skiff-auth.${TOKEN}`), { ok: true, protocol: `skiff-auth.${TOKEN}` });
	assert.equal(offer("skiff-auth.").ok, false);
	assert.equal(offer(`Skiff-Auth.${TOKEN}`).ok, false);
	assert.equal(offer(`skiff-auth.${TOKEN}x`).ok, false);
	// Not consulted on plain HTTP.
	assert.equal(authorizeRequest(tokened, req({ "Sec-WebSocket-Protocol": `skiff-auth.${TOKEN}` }), { websocket: false }).ok, false);
});

test("tokenless loopback: native clients pass, browsers only same-origin at a loopback name", () => {
	const http = { websocket: false };
	assert.deepEqual(authorizeRequest(open, req({ Host: "127.0.0.1:8787" }), http), { ok: true, protocol: undefined });
	const ok = [
		{ Origin: "http://127.0.0.1:8787", Host: "127.0.0.1:8787" },
		{ Origin: "http://localhost:8787", Host: "localhost:8787" },
		{ Origin: "http://[::1]:8787", Host: "[::1]:8787" },
		{ Origin: "http://localhost", Host: "localhost:80" },
	];
	for (const headers of ok) assert.equal(authorizeRequest(open, req(headers), http).ok, true, JSON.stringify(headers));
	const refused: Array<[Record<string, string>, number]> = [
		[{ Origin: "http://evil.example", Host: "127.0.0.1:8787" }, 403],
		[{ Origin: "http://evil.example:8787", Host: "evil.example:8787" }, 403], // DNS rebinding
		[{ Origin: "null", Host: "127.0.0.1:8787" }, 403],
		[{ Origin: "file://", Host: "127.0.0.1:8787" }, 403],
		[{ Origin: "http://127.0.0.1:8787/path", Host: "127.0.0.1:8787" }, 403],
		[{ Origin: "https://127.0.0.1:8788", Host: "127.0.0.1:8787" }, 403],
		[{ Origin: "http://127.0.0.1:8787" }, 400],
	];
	for (const [headers, status] of refused) {
		const decision = authorizeRequest(open, req(headers), http);
		assert.equal(decision.ok, false, JSON.stringify(headers));
		assert.equal(!decision.ok && decision.status, status, JSON.stringify(headers));
	}
	const twoOrigins = req({ Origin: "http://127.0.0.1:8787", Host: "127.0.0.1:8787" }, ["Origin", "http://127.0.0.1:8787", "Origin", "http://evil", "Host", "127.0.0.1:8787"]);
	assert.equal(authorizeRequest(open, twoOrigins, http).ok, false);
});

test("tokenless remote: same origin is enough (no loopback requirement); stale offers are echoed", () => {
	const http = { websocket: false };
	assert.equal(authorizeRequest(remote, req({ Origin: "http://box.lan:8787", Host: "box.lan:8787" }), http).ok, true);
	assert.equal(authorizeRequest(remote, req({ Origin: "http://other.lan:8787", Host: "box.lan:8787" }), http).ok, false);
	assert.deepEqual(authorizeRequest(open, req({ "Sec-WebSocket-Protocol": "skiff-auth.stale" }), { websocket: true }), { ok: true, protocol: "skiff-auth.stale" });
});

test("with a token: a TLS proxy's public name works; a bearer client's matching offer is echoed; hosts are strict", () => {
	const proxied = req({ Origin: "https://skiff.example.com", Host: "skiff.example.com", Authorization: `Bearer ${TOKEN}` });
	assert.deepEqual(authorizeRequest(tokened, proxied, { websocket: false }), { ok: true, protocol: undefined });
	const sameWithoutToken = req({ Origin: "https://skiff.example.com", Host: "skiff.example.com" });
	assert.equal(authorizeRequest(open, sameWithoutToken, { websocket: false }).ok, false, "tokenless loopback still requires a loopback name");
	const both = req({ Authorization: `Bearer ${TOKEN}`, "Sec-WebSocket-Protocol": `skiff-auth.${TOKEN}` });
	assert.deepEqual(authorizeRequest(tokened, both, { websocket: true }), { ok: true, protocol: `skiff-auth.${TOKEN}` });
	assert.equal(authorizeRequest(open, req({ Origin: "http://[::ffff:7f00:1]:8787", Host: "[::ffff:7f00:1]:8787" }), { websocket: false }).ok, true);
	const bareV6 = authorizeRequest(remote, req({ Origin: "http://::1", Host: "::1" }), { websocket: false });
	assert.equal(bareV6.ok, false);
	const twoHosts = authorizeRequest(open, req({ Host: "127.0.0.1:1" }, ["Host", "127.0.0.1:1", "Host", "evil:1"]), { websocket: false });
	assert.deepEqual(twoHosts, { ok: false, status: 400, reason: "bad request: repeated Host header" });
});

test("with a token, a browser from another origin is refused even with the right token", () => {
	const decision = authorizeRequest(tokened, req({ Origin: "http://evil.example", Host: "127.0.0.1:1", Authorization: `Bearer ${TOKEN}` }), { websocket: false });
	assert.equal(!decision.ok && decision.status, 403);
});

test("downloads: the /rpc rules, plus no cross-site or same-site fetch, and loopback Hosts only on a tokenless loopback listener", () => {
	const host = { Host: "127.0.0.1:8787" };
	assert.deepEqual(authorizeDownload(open, req(host)), { ok: true });
	assert.deepEqual(authorizeDownload(open, req({ ...host, "Sec-Fetch-Site": "same-origin" })), { ok: true });
	assert.deepEqual(authorizeDownload(open, req({ ...host, "Sec-Fetch-Site": "none" })), { ok: true }, "typed or bookmarked");
	for (const site of ["cross-site", "same-site", "Cross-Site"]) {
		const decision = authorizeDownload(open, req({ ...host, "Sec-Fetch-Site": site }));
		assert.deepEqual(decision, { ok: false, status: 403, reason: "forbidden: a download must come from this origin's own page" }, site);
	}
	const rebinding = authorizeDownload(open, req({ Host: "evil.example:8787" }));
	assert.deepEqual(rebinding, { ok: false, status: 403, reason: "forbidden: a loopback listener serves downloads only at a loopback address" });
	assert.equal(authorizeDownload(open, req({})).ok, false, "no Host at all");
	assert.deepEqual(authorizeDownload(tokened, req({ Host: "proxy.example", Authorization: `Bearer ${TOKEN}` })), { ok: true }, "a token makes the Host free");
	assert.equal(authorizeDownload(tokened, req({ Host: "127.0.0.1" })).ok, false, "the token is still required");
	assert.deepEqual(authorizeDownload(remote, req({ Host: "10.0.0.5:8787" })), { ok: true }, "a tokenless remote listener is open by the operator's choice");
	assert.equal(authorizeDownload(open, req({ ...host, Origin: "http://evil.example" })).ok, false, "the browser rule still applies");
});
