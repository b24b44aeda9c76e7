/**
 * The listener's routes, answer by answer: every path and method it knows, a wrong method on each, HEAD on the
 * GET routes, unknown paths, and the order of the checks where a route authenticates (on /rpc authentication
 * comes before the method, on /export after it). Pinned on the wire, byte for byte where it matters.
 */
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { createRouter, pathOf, type Route } from "../../../src/listener/routes.js";
import { exchange, PAGE_TITLE, request, startWireListener, UNKNOWN_ROOM, upgrade, type WireListener } from "./listener-wire.js";

const TOKEN = "routes-test-token";
const TEXT = "text/plain; charset=utf-8";

describe("the route table", () => {
	/** What the handlers saw: `route method path`; and the admissions asked for. */
	const served: string[] = [];
	const admissions: string[] = [];
	const handler = (name: string): Route["handle"] => (request, response, path) => {
		served.push(`${name} ${request.method} ${path}`);
		response.writeHead(200, { "Content-Type": "text/plain" }).end(`${name}\n`);
	};
	const routes: Route[] = [
		{ path: "/page", methods: ["GET"], handle: handler("page") },
		{ path: "/write", methods: ["POST", "PUT"], wrongMethod: "method not allowed: POST or PUT to /write", handle: handler("write") },
		{ path: (p) => p.startsWith("/any/"), handle: handler("any") },
		{ path: "/any/first", handle: handler("never: an earlier route matches") },
		{ path: "/guarded", methods: ["GET"], admit: "/rpc", handle: handler("guarded") },
	];
	let url: string;
	let server: ReturnType<typeof createServer>;
	before(async () => {
		const admit = (request: IncomingMessage) => {
			admissions.push(`${request.method} ${request.url}`);
			return request.headers.authorization === "yes" ? { ok: true as const } : { ok: false as const, status: 429, reason: "slow down", retryAfterSeconds: 7 };
		};
		server = createServer(createRouter(routes, admit));
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	});
	after(() => new Promise<void>((resolve) => server.close(() => resolve())));

	const call = (method: string, path: string, headers: Record<string, string> = {}) =>
		new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
			const req = httpRequest(`${url}${path}`, { method, headers, agent: false }, (res) => {
				let body = "";
				res.setEncoding("utf8");
				res.on("data", (d) => (body += d));
				res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
			});
			req.on("error", reject);
			req.end();
		});

	test("a served method reaches the handler with the path (no query); HEAD reaches a GET route, and no body is sent", async () => {
		served.length = 0;
		assert.deepEqual(await call("GET", "/page?x=1").then((r) => [r.status, r.body]), [200, "page\n"]);
		const head = await call("HEAD", "/page");
		assert.deepEqual([head.status, head.body], [200, ""]);
		assert.equal((await call("PUT", "/write")).status, 200);
		assert.deepEqual(served, ["page GET /page", "page HEAD /page", "write PUT /write"]);
	});

	test("another method on a known path is a 405 naming the methods served in Allow, HEAD with GET", async () => {
		const post = await call("POST", "/page");
		assert.deepEqual([post.status, post.headers.allow, post.body], [405, "GET, HEAD", "method not allowed\n"]);
		assert.equal(post.headers["content-type"], TEXT);
		const get = await call("GET", "/write");
		assert.deepEqual([get.status, get.headers.allow, get.body], [405, "POST, PUT", "method not allowed: POST or PUT to /write\n"]);
		const head = await call("HEAD", "/write");
		assert.deepEqual([head.status, head.headers.allow, head.body], [405, "POST, PUT", ""]);
	});

	test("an unknown path is a 404 whatever the method; a route without methods takes every one; the first match wins", async () => {
		for (const method of ["GET", "POST", "DELETE"]) {
			const answer = await call(method, "/nowhere");
			assert.deepEqual([answer.status, answer.body, answer.headers.allow], [404, "not found\n", undefined], method);
		}
		assert.equal((await call("HEAD", "/nowhere")).body, "");
		served.length = 0;
		for (const method of ["GET", "PATCH", "OPTIONS"]) assert.equal((await call(method, "/any/first")).body, "any\n");
		assert.deepEqual(served, ["any GET /any/first", "any PATCH /any/first", "any OPTIONS /any/first"]);
	});

	test("admission runs after the method check and before the handler; its refusal keeps its headers", async () => {
		admissions.length = 0;
		served.length = 0;
		assert.equal((await call("POST", "/guarded")).status, 405);
		assert.deepEqual(admissions, [], "a wrong method is refused before admission");
		const refused = await call("GET", "/guarded");
		assert.deepEqual([refused.status, refused.headers["retry-after"], refused.body], [429, "7", "slow down\n"]);
		assert.deepEqual(served, []);
		assert.equal((await call("GET", "/guarded", { authorization: "yes" })).status, 200);
		assert.deepEqual(admissions, ["GET /guarded", "GET /guarded"]);
		assert.deepEqual(served, ["guarded GET /guarded"]);
	});

	test("paths are the request target without its query", () => {
		assert.equal(pathOf("/web?x=1"), "/web");
		assert.equal(pathOf("/a/b"), "/a/b");
		assert.equal(pathOf(undefined), "/");
		assert.equal(pathOf("/?"), "/");
	});
});

describe("the listener's routes (tokenless, with collaboration rooms)", () => {
	let wire: WireListener;
	before(async () => {
		wire = await startWireListener({ collab: true });
	});
	after(() => wire.close());

	/** [method, path, status, body (exact, or a pattern), headers expected (undefined: must be absent)] */
	const cases: Array<[string, string, number, string | RegExp, Record<string, string | undefined>]> = [
		["GET", "/web", 200, new RegExp(PAGE_TITLE), { "content-type": "text/html; charset=utf-8" }],
		["GET", "/web/", 200, new RegExp(PAGE_TITLE), { "content-type": "text/html; charset=utf-8" }],
		["GET", "/web?x=1", 200, new RegExp(PAGE_TITLE), {}],
		["HEAD", "/web", 200, "", { "content-type": "text/html; charset=utf-8" }],
		["POST", "/web", 405, "method not allowed\n", { "content-type": TEXT, "cache-control": "no-store", allow: "GET, HEAD" }],
		["DELETE", "/web/", 405, "method not allowed\n", { allow: "GET, HEAD" }],
		["GET", "/", 302, "", { location: "/web" }],
		["POST", "/?x=1", 302, "", { location: "/web" }],
		["GET", "/ws", 426, "upgrade required: /ws is a WebSocket endpoint\n", { "content-type": TEXT, "cache-control": "no-store" }],
		["POST", "/ws", 426, "upgrade required: /ws is a WebSocket endpoint\n", {}],
		["GET", "/rpc", 405, "method not allowed: POST one JSON command (or JSONL) to /rpc\n", { allow: "POST", "content-type": TEXT }],
		["HEAD", "/rpc", 405, "", { allow: "POST" }],
		["GET", `/collab/ws/${UNKNOWN_ROOM}`, 200, new RegExp(PAGE_TITLE), { "content-type": "text/html; charset=utf-8" }],
		["HEAD", `/collab/ws/${UNKNOWN_ROOM}`, 200, "", {}],
		["POST", `/collab/ws/${UNKNOWN_ROOM}`, 405, "method not allowed\n", { allow: "GET, HEAD", "content-type": TEXT }],
		["GET", "/collab/ws/short", 404, "not found\n", {}],
		["POST", "/collab/ws/short", 404, "not found\n", {}],
		["GET", "/collab/x", 404, "not found\n", {}],
		["POST", "/export/abc.jsonl", 405, "method not allowed: GET /export/<sessionId>.html or .jsonl\n", { allow: "GET, HEAD", "content-type": TEXT }],
		["PUT", "/export/nonsense", 405, "method not allowed: GET /export/<sessionId>.html or .jsonl\n", { allow: "GET, HEAD" }],
		["GET", "/export/abc.pdf", 404, "not found: export a session as /export/<sessionId>.html or /export/<sessionId>.jsonl\n", { "content-type": TEXT }],
		["HEAD", "/export/abc.pdf", 404, "", {}],
		["GET", "/export/", 404, "not found: export a session as /export/<sessionId>.html or /export/<sessionId>.jsonl\n", {}],
		["GET", "/nowhere", 404, "not found\n", { "content-type": TEXT, "cache-control": "no-store", allow: undefined }],
		["HEAD", "/nowhere", 404, "", {}],
		["DELETE", "/webx", 404, "not found\n", {}],
		["GET", "/rpc/", 404, "not found\n", {}],
		["GET", "/export", 404, "not found\n", {}],
	];
	for (const [method, path, status, body, headers] of cases) {
		test(`${method} ${path} → ${status}`, async () => {
			const answer = await exchange(wire.url, request(method, path, wire.host));
			assert.equal(answer.status, status, answer.raw);
			if (typeof body === "string") assert.equal(answer.body, body);
			else assert.match(answer.body, body);
			for (const [name, value] of Object.entries(headers)) assert.equal(answer.headers[name], value, name);
		});
	}

	test("POST /rpc is served", async () => {
		const answer = await exchange(wire.url, request("POST", "/rpc", wire.host, "Content-Type: application/json\r\n", '{"type":"ping","id":"p"}'));
		assert.equal(answer.status, 200);
		assert.equal(JSON.parse(answer.body).id, "p");
	});

	test("a well-formed export gets past the route to the dispatcher (whose fake sessions here have no file on disk)", async () => {
		const answer = await exchange(wire.url, request("GET", "/export/no-such-session.jsonl", wire.host));
		assert.equal(answer.status, 500, answer.raw);
		assert.doesNotMatch(answer.body, /not found: export a session as|method not allowed/);
	});

	/** [what, request, status, body] for WebSocket upgrades. */
	const upgrades = (host: string): Array<[string, string, number, string | undefined]> => [
		["/ws", upgrade("/ws", host), 101, undefined],
		["/ws with a query", upgrade("/ws?x=1", host), 101, undefined],
		["an unknown path", upgrade("/nowhere", host), 404, "not found\n"],
		["/web", upgrade("/web", host), 404, "not found\n"],
		["/rpc", upgrade("/rpc", host), 404, "not found\n"],
		["/ws with POST", upgrade("/ws", host, "", "POST"), 404, "not found\n"],
		["a malformed room", upgrade("/collab/ws/short", host), 404, "not found\n"],
		["an unknown path over HTTP/1.0 (the path first)", upgrade("/nowhere", host, "", "GET", "1.0"), 404, "not found\n"],
		["/ws over HTTP/1.0", upgrade("/ws", host, "", "GET", "1.0"), 400, "bad request: a WebSocket upgrade must be an HTTP/1.1 request\n"],
		["/ws without Host", upgrade("/ws", undefined), 400, "bad request: a WebSocket upgrade needs a Host header\n"],
		["a room over HTTP/1.0", upgrade(`/collab/ws/${UNKNOWN_ROOM}`, host, "", "GET", "1.0"), 400, "bad request: a WebSocket upgrade must be an HTTP/1.1 request\n"],
		["a room without Host", upgrade(`/collab/ws/${UNKNOWN_ROOM}`, undefined), 400, "bad request: a WebSocket upgrade needs a Host header\n"],
		["an unknown room", upgrade(`/collab/ws/${UNKNOWN_ROOM}`, host), 401, "unauthorized: unknown collaboration room or invalid capability\n"],
	];
	test("WebSocket upgrades: the path and method first, then the handshake's shape, then credentials", async () => {
		for (const [what, text, status, body] of upgrades(wire.host)) {
			const answer = await exchange(wire.url, text);
			assert.equal(answer.status, status, `${what}: ${answer.raw}`);
			if (body !== undefined) {
				assert.equal(answer.body, body, what);
				assert.equal(answer.headers["content-type"], TEXT, what);
				assert.equal(answer.headers.connection, "close", what);
				assert.equal(answer.headers["content-length"], String(Buffer.byteLength(body)), what);
			}
		}
	});
});

describe("the listener's routes (token, no collaboration rooms)", () => {
	let wire: WireListener;
	before(async () => {
		wire = await startWireListener({ auth: { loopback: true, token: TOKEN } });
	});
	after(() => wire.close());

	test("/rpc authenticates before it looks at the method; /export looks at the method first, the path after", async () => {
		const unauthorized = "unauthorized: missing or invalid token\n";
		const cases: Array<[string, string, string, number, string]> = [
			["GET", "/rpc", "", 401, unauthorized],
			["GET", "/rpc", `Authorization: Bearer ${TOKEN}\r\n`, 405, "method not allowed: POST one JSON command (or JSONL) to /rpc\n"],
			["PUT", "/export/abc.jsonl", "", 405, "method not allowed: GET /export/<sessionId>.html or .jsonl\n"],
			["GET", "/export/abc.pdf", "", 401, unauthorized],
			["GET", "/export/abc.pdf", `Authorization: Bearer ${TOKEN}\r\n`, 404, "not found: export a session as /export/<sessionId>.html or /export/<sessionId>.jsonl\n"],
			["GET", "/web", "", 200, `<!doctype html>${PAGE_TITLE}`],
			["GET", "/ws", "", 426, "upgrade required: /ws is a WebSocket endpoint\n"],
		];
		for (const [method, path, extra, status, body] of cases) {
			const answer = await exchange(wire.url, request(method, path, wire.host, extra));
			assert.equal(answer.status, status, `${method} ${path} ${extra}: ${answer.raw}`);
			assert.equal(answer.body, body, `${method} ${path}`);
		}
	});

	test("without collaboration rooms, /collab/ws/<roomId> is not found, as a page and as a socket", async () => {
		assert.equal((await exchange(wire.url, request("GET", `/collab/ws/${UNKNOWN_ROOM}`, wire.host))).status, 404);
		const socket = await exchange(wire.url, upgrade(`/collab/ws/${UNKNOWN_ROOM}`, wire.host));
		assert.equal(socket.status, 404);
		assert.equal(socket.body, "not found\n");
	});

	test("/ws needs the token; with it the upgrade completes with the offered subprotocol", async () => {
		assert.equal((await exchange(wire.url, upgrade("/ws", wire.host))).status, 401);
		const ok = await exchange(wire.url, upgrade("/ws", wire.host, `Sec-WebSocket-Protocol: chat, skiff-auth.${TOKEN}\r\n`));
		assert.equal(ok.status, 101);
		assert.equal(ok.headers["sec-websocket-protocol"], `skiff-auth.${TOKEN}`);
	});
});
