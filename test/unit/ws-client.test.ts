/** The tests' WebSocket client: a wait for what can no longer come (the connection closed) ends at once. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { WebSocketServer } from "ws";
import { TestClient } from "../support/ws-client.js";

let server: WebSocketServer;
let url: string;

before(async () => {
	// Answers `ping`, closes the connection on `leave`, ignores anything else.
	server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
	server.on("connection", (socket) => {
		socket.on("message", (data) => {
			const command = JSON.parse(String(data)) as { type: string; id: string };
			if (command.type === "ping") socket.send(JSON.stringify({ type: "response", id: command.id, command: "ping", success: true }));
			if (command.type === "leave") socket.close(1000, "bye");
		});
	});
	await new Promise((resolve) => server.once("listening", resolve));
	url = `ws://127.0.0.1:${(server.address() as { port: number }).port}`;
});

after(() => new Promise<void>((resolve) => server.close(() => resolve())));

// The test's own timeout only guards against the old behaviour, which waited out the request's ten minutes.
test("a request or an event waited for when the connection closes fails at once, naming what it waited for; what came before still counts", { timeout: 20_000 }, async () => {
	const client = await TestClient.connect(url);
	assert.equal((await client.request({ type: "ping" })).success, true);
	const unanswered = client.request({ type: "never-answered" }, 600_000);
	const event = client.waitForEvent(() => true, 600_000);
	client.sendRaw(JSON.stringify({ type: "leave", id: "l1" }));
	await assert.rejects(unanswered, /the connection closed \(1000\) before response to never-answered/);
	await assert.rejects(event, /the connection closed \(1000\) before event/);
	assert.deepEqual(await client.waitForClose(), { code: 1000, reason: "bye" });
	assert.equal(client.responses.length, 1, "the answer that came before the close is kept");
});
