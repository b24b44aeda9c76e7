/**
 * Requests a well-behaved client never sends get a precise refusal: repeated credentials, header blocks
 * over the limit, WebSocket upgrades without Host or over HTTP/1.0; and over-long envelope fields are not
 * echoed back, while a reasonable `id` always is.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { MAX_ID_CHARS } from "../../src/protocol/dispatch.js";
import { MAX_ECHO_CHARS } from "../../src/protocol/echo.js";
import { MAX_CONCURRENT_COMMANDS, MAX_HEADER_BYTES } from "../../src/listener/limits.js";
import { type ListenerHarness, startHarness } from "../support/listener-harness.js";
import { rawRequest, statusOf } from "../support/raw-http.js";
import { TestClient } from "../support/ws-client.js";

const TOKEN = "malformed-requests-token";
const UPGRADE = "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";

let harness: ListenerHarness;
let host: string;

before(async () => {
	harness = await startHarness({ auth: { loopback: true, token: TOKEN } });
	host = new URL(harness.url).host;
});
after(() => harness.close());

const rpcRequest = (headers: string) =>
	`POST /rpc HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 15\r\n${headers}Connection: close\r\n\r\n{"type":"ping"}`;

test("the token is accepted once: a repeated Authorization header is a 400", async () => {
	assert.equal(statusOf(await rawRequest(harness.url, rpcRequest(`Authorization: Bearer ${TOKEN}\r\n`))), 200);
	const twice = await rawRequest(harness.url, rpcRequest(`Authorization: Bearer ${TOKEN}\r\nAuthorization: Bearer wrong\r\n`));
	assert.equal(statusOf(twice), 400);
	assert.match(twice, /repeated Authorization header/);
	assert.doesNotMatch(twice, new RegExp(TOKEN));
	const upgradeTwice = await rawRequest(
		harness.url,
		`GET /ws HTTP/1.1\r\nHost: ${host}\r\n${UPGRADE}Authorization: Bearer ${TOKEN}\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`,
	);
	assert.equal(statusOf(upgradeTwice), 400);
});

test("a header block over the limit gets 431", async () => {
	const big = `X-Padding: ${"p".repeat(MAX_HEADER_BYTES + 1024)}\r\n`;
	assert.equal(statusOf(await rawRequest(harness.url, rpcRequest(big))), 431);
});

test("a WebSocket upgrade needs Host and HTTP/1.1", async () => {
	const auth = `Authorization: Bearer ${TOKEN}\r\n`;
	assert.equal(statusOf(await rawRequest(harness.url, `GET /ws HTTP/1.1\r\nHost: ${host}\r\n${UPGRADE}${auth}\r\n`)), 101, "the well-formed upgrade works");
	const noHost = await rawRequest(harness.url, `GET /ws HTTP/1.1\r\n${UPGRADE}${auth}\r\n`);
	assert.equal(statusOf(noHost), 400);
	assert.match(noHost, /Host/);
	const http10 = await rawRequest(harness.url, `GET /ws HTTP/1.0\r\nHost: ${host}\r\n${UPGRADE}${auth}\r\n`);
	assert.equal(statusOf(http10), 400);
	assert.match(http10, /HTTP\/1\.1/);
});

test("long envelope fields are echoed as a short prefix; an id within the limit is echoed exactly", async () => {
	const client = await TestClient.connect(harness.wsUrl, { protocols: [`skiff-auth.${TOKEN}`] });
	const huge = "t".repeat(1024 * 1024);
	const id = "i".repeat(MAX_ID_CHARS);
	client.sendRaw(JSON.stringify({ type: huge, id }));
	client.sendRaw(JSON.stringify({ type: "ping", id: `${id}x` }));
	client.sendRaw(JSON.stringify({ type: "ping", id: "s", sessionId: huge }));
	await client.waitFor(() => (client.responses.length >= 3 ? true : undefined), 5000, "responses");
	const [unknown, longId, longSession] = client.responses;
	assert.equal(unknown!.id, id, "an id of the maximum length is echoed exactly");
	assert.equal(unknown!.command, `${"t".repeat(MAX_ECHO_CHARS)}…`);
	assert.ok(unknown!.error!.length < 200, "the error does not echo the whole type");
	assert.equal(longId!.success, false);
	assert.equal(longId!.id, undefined);
	assert.match(longId!.error!, new RegExp(`\`id\`.*${MAX_ID_CHARS}`));
	assert.equal(longSession!.id, "s");
	assert.equal(longSession!.success, false);
	assert.ok(longSession!.error!.length < 200, "the error does not echo the whole sessionId");
	for (const frame of client.frames) assert.ok(frame.length < 1024, "no response carries the megabyte back");
	client.close();
});

test("the 'too many commands in flight' error carries the command's id", async () => {
	const client = await TestClient.connect(harness.wsUrl, { protocols: [`skiff-auth.${TOKEN}`] });
	for (let i = 0; i < MAX_CONCURRENT_COMMANDS; i++) client.sendRaw(JSON.stringify({ type: "hang", id: `h${i}` }));
	const refused = await client.request({ type: "ping" });
	assert.equal(refused.success, false);
	assert.match(refused.error!, /Too many commands in flight/);
	assert.equal(refused.command, "ping");
	client.close();
});
