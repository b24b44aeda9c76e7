/** SkiffClient against a scripted socket: ids, typed calls and events, seq bookkeeping, resubscribe and resync. */
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";
import { type ResyncNotice, SkiffClient, type SkiffClientOptions, SkiffCommandError, SkiffConnectionError, type SkiffEvent, type StatusChange } from "../../../src/client/index.js";
import { FakeSocket, settle } from "./fake-socket.js";

const URL = "ws://127.0.0.1:1/ws";
const EPOCH = "epoch-1";

beforeEach(() => FakeSocket.reset());

function client(options: Partial<SkiffClientOptions> = {}): SkiffClient {
	return new SkiffClient({ url: URL, WebSocket: FakeSocket, reconnect: { delayMs: () => 0 }, ...options });
}

/** A client connected through a fresh socket. */
async function connected(options: Partial<SkiffClientOptions> = {}): Promise<{ client: SkiffClient; socket: FakeSocket }> {
	const c = client(options);
	const done = c.connect();
	FakeSocket.latest().open();
	await done;
	return { client: c, socket: FakeSocket.latest() };
}

function textDelta(sessionId: string, seq: number, delta: string): Record<string, unknown> {
	return { type: "message_update", sessionId, seq, assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta } };
}

function state(sessionId: string, lastSeq: number, epoch = EPOCH): Record<string, unknown> {
	return { sessionId, lastSeq, epoch, isStreaming: false };
}

/** Waits until the client makes a new socket (its retry timer ran), then returns it. */
async function nextSocket(count: number): Promise<FakeSocket> {
	while (FakeSocket.made.length < count) await settle();
	return FakeSocket.latest();
}

test("the token is offered only as the skiff-auth subprotocol, read at every connect", async () => {
	let token: string | undefined = "first-token";
	const c = client({ token: () => token });
	void c.connect().catch(() => undefined);
	assert.equal(FakeSocket.latest().url, URL);
	assert.deepEqual(FakeSocket.latest().protocols, ["skiff-auth.first-token"]);
	token = undefined;
	void c.connect().catch(() => undefined);
	assert.deepEqual(FakeSocket.latest().protocols, []);
	c.close();
});

test("a token a subprotocol cannot carry is refused before connecting, without echoing it", async () => {
	const c = client({ token: "has space" });
	const error = await c.connect().then(
		() => assert.fail("connected"),
		(e: unknown) => e,
	);
	assert.ok(error instanceof SkiffConnectionError);
	assert.equal(error.kind, "invalid_token");
	assert.doesNotMatch(error.message, /has space/);
	assert.equal(FakeSocket.made.length, 0);
});

test("responses are matched by generated ids, in any order; failures carry command and code", async () => {
	const { client: c, socket } = await connected();
	const stateCall = c.call("get_state", {}, { sessionId: "s1" });
	const renamed = c.commands.set_session_name({ name: "Named" }, { sessionId: "s1" });
	const prompt = c.commands.prompt({ message: "hi" });
	assert.deepEqual(
		socket.sent.map((f) => f.type),
		["get_state", "set_session_name", "prompt"],
	);
	assert.equal(new Set(socket.sent.map((f) => f.id)).size, 3, "every command has its own id");
	assert.equal(socket.sent[0]!.sessionId, "s1");
	assert.equal("sessionId" in socket.sent[2]!, false, "no sessionId unless given");
	socket.fail("prompt", "A run is active", "busy");
	socket.answer("set_session_name", { name: "Named" });
	socket.answer("get_state", state("s1", 0));
	assert.deepEqual(await renamed, { name: "Named" });
	assert.equal((await stateCall).sessionId, "s1");
	const error = await prompt.then(
		() => assert.fail("resolved"),
		(e: unknown) => e,
	);
	assert.ok(error instanceof SkiffCommandError);
	assert.equal(error.command, "prompt");
	assert.equal(error.code, "busy");
	assert.equal(error.message, "A run is active");
	c.close();
});

test("commands is a typed method per command, with optional parameters for commands that take none", async () => {
	const { client: c, socket } = await connected();
	const ping = c.commands.ping();
	socket.answer("ping", { pong: true, time: 1, protocolVersion: 1 });
	assert.equal((await ping).pong, true);
	assert.equal((c.commands as unknown as Record<string, unknown>).then, undefined, "not mistaken for a promise");
	c.close();
});

test("calls fail at once while not connected, and with connection_lost when the connection drops", async () => {
	const c = client({ reconnect: false });
	await assert.rejects(c.commands.ping(), (e: SkiffCommandError) => e.code === "not_connected");
	const done = c.connect();
	FakeSocket.latest().open();
	await done;
	const waiting = c.commands.get_state();
	FakeSocket.latest().drop(1001, "server shutting down");
	await assert.rejects(waiting, (e: SkiffCommandError) => e.code === "connection_lost" && e.command === "get_state");
	assert.equal(c.status, "offline");
});

test("a call with no answer in time fails with timeout", async () => {
	const { client: c } = await connected();
	await assert.rejects(c.commands.ping({}, { timeoutMs: 1 }), (e: SkiffCommandError) => e.code === "timeout");
	c.close();
});

test("events are typed by type, delivered once each; seq may skip, repeats are dropped", async () => {
	const { client: c, socket } = await connected();
	const all: SkiffEvent[] = [];
	const deltas: string[] = [];
	c.onEvent((e) => all.push(e));
	const stop = c.on("message_update", (e) => {
		if (e.assistantMessageEvent.type === "text_delta") deltas.push(e.assistantMessageEvent.delta);
	});
	socket.deliver({ type: "agent_start", sessionId: "s1", seq: 1 });
	socket.deliver(textDelta("s1", 2, "Hel"));
	socket.deliver(textDelta("s1", 5, "lo")); // merged deltas: seq skips
	socket.deliver(textDelta("s1", 5, "lo")); // a repeat
	socket.deliver(textDelta("s1", 3, "x")); // older
	socket.deliver(textDelta("s2", 1, "other session")); // numbering is per session
	stop();
	socket.deliver(textDelta("s1", 6, "!"));
	assert.deepEqual(deltas, ["Hel", "lo", "other session"]);
	assert.deepEqual(
		all.map((e) => `${e.sessionId}:${e.seq}`),
		["s1:1", "s1:2", "s1:5", "s2:1", "s1:6"],
	);
	c.close();
});

test("a listener that throws does not stop the others, and is reported as an uncaught error", async () => {
	const { client: c, socket } = await connected();
	const seen: number[] = [];
	const reported: Array<() => void> = [];
	const queue = globalThis.queueMicrotask;
	globalThis.queueMicrotask = (callback) => void reported.push(callback);
	try {
		c.onEvent(() => {
			throw new Error("listener bug");
		});
		c.onEvent((e) => seen.push(e.seq));
		socket.deliver({ type: "agent_start", sessionId: "s1", seq: 1 });
	} finally {
		globalThis.queueMicrotask = queue;
		c.close();
	}
	assert.deepEqual(seen, [1]);
	assert.equal(reported.length, 1);
	assert.throws(reported[0]!, /listener bug/, "rethrown where nothing catches it");
});

test("the epoch is learned once per connection, asking get_state of a followed session when nothing reported it", async () => {
	const { client: c, socket } = await connected();
	socket.deliver({ type: "agent_start", sessionId: "s1", seq: 1 });
	socket.deliver(textDelta("s1", 2, "a"));
	const asked = socket.sent.filter((f) => f.type === "get_state");
	assert.equal(asked.length, 1);
	assert.equal(asked[0]!.sessionId, "s1");
	socket.answer("get_state", state("s1", 2));
	socket.deliver(textDelta("s1", 3, "b"));
	assert.equal(socket.sent.filter((f) => f.type === "get_state").length, 1);
	c.close();
});

test("after a drop, subscribe goes first for every followed session; calls made meanwhile wait for it", async () => {
	const { client: c, socket } = await connected();
	const statuses: StatusChange[] = [];
	c.onStatus((s) => statuses.push(s));
	const texts: string[] = [];
	c.on("message_update", (e) => e.assistantMessageEvent.type === "text_delta" && texts.push(e.assistantMessageEvent.delta));
	const first = c.commands.get_state({}, { sessionId: "s1" });
	socket.answer("get_state", state("s1", 3));
	await first;
	socket.deliver(textDelta("s1", 4, "A"));
	const snapshot = c.commands.switch_session({ sessionPath: "s2" });
	socket.answer("switch_session", { sessionId: "s2", state: state("s2", 10), messages: [], cancelled: false });
	await snapshot;
	socket.deliver(textDelta("s2", 11, "B"));

	socket.drop();
	assert.equal(statuses.at(-1)!.status, "reconnecting");
	assert.match(statuses.at(-1)!.detail!, /connection lost; retrying in 0 s/);
	const again = await nextSocket(2);
	again.open();
	assert.deepEqual(
		again.sent.map((f) => [f.type, f.sessionId, f.sinceSeq, f.epoch]),
		[
			["subscribe", "s1", 4, EPOCH],
			["subscribe", "s2", 11, EPOCH],
		],
	);
	const meanwhile = c.commands.get_state({}, { sessionId: "s1" });
	assert.equal(again.sent.length, 2, "held until the resubscribes are answered");
	again.deliver(textDelta("s1", 5, "C")); // replayed
	again.answer("subscribe", { sessionId: "s1", seq: 5, replayed: 1, resync: false }, 0);
	again.deliver(textDelta("s2", 11, "B")); // a repeat is dropped
	again.answer("subscribe", { sessionId: "s2", seq: 11, replayed: 0, resync: false }, 1);
	await settle();
	assert.equal(c.status, "connected");
	assert.deepEqual(
		again.sent.map((f) => f.type),
		["subscribe", "subscribe", "get_state"],
	);
	again.answer("get_state", state("s1", 5));
	await meanwhile;
	assert.deepEqual(texts, ["A", "B", "C"]);
	c.close();
});

test("a resync is announced before the status turns connected; the reload's seq filters later repeats", async () => {
	const { client: c, socket } = await connected();
	const order: string[] = [];
	const notices: ResyncNotice[] = [];
	c.onResync((n) => {
		notices.push(n);
		order.push(`resync ${n.sessionId}`);
	});
	c.onStatus((s) => order.push(s.status));
	const seqs: number[] = [];
	c.onEvent((e) => seqs.push(e.seq));
	const first = c.commands.get_state({}, { sessionId: "s1" });
	socket.answer("get_state", state("s1", 40));
	await first;
	socket.drop();
	const again = await nextSocket(2);
	again.open();
	assert.deepEqual(again.sent[0], { type: "subscribe", id: again.sent[0]!.id, sessionId: "s1", sinceSeq: 40, epoch: EPOCH });
	again.answer("subscribe", { sessionId: "s1", seq: 2, replayed: 0, resync: true }); // the service restarted
	await settle();
	assert.deepEqual(order, ["reconnecting", "reconnecting", "resync s1", "connected"]);
	assert.deepEqual(notices, [{ sessionId: "s1" }]);

	const reload = c.reloadSession("s1");
	const sent = again.sent.find((f) => f.type === "get_messages")!;
	assert.equal(sent.sessionId, "s1");
	again.deliver({ type: "agent_start", sessionId: "s1", seq: 3 }); // before the snapshot: it includes it
	again.answer("get_messages", { messages: [], seq: 4 });
	assert.deepEqual(await reload, { messages: [], seq: 4 });
	again.deliver({ type: "turn_start", sessionId: "s1", seq: 4 }); // covered by the snapshot
	again.deliver({ type: "turn_end", sessionId: "s1", seq: 5 });
	assert.deepEqual(seqs, [3, 5]);
	c.close();
});

test("a session that cannot be followed again is reported with the error and no longer resumed", async () => {
	const { client: c, socket } = await connected();
	const notices: ResyncNotice[] = [];
	c.onResync((n) => notices.push(n));
	socket.deliver({ type: "agent_start", sessionId: "gone", seq: 1 });
	socket.drop();
	let again = await nextSocket(2);
	again.open();
	again.fail("subscribe", "Unknown session: gone", "unknown_session");
	await settle();
	assert.equal(notices.length, 1);
	assert.equal(notices[0]!.sessionId, "gone");
	assert.equal(notices[0]!.error?.code, "unknown_session");
	assert.equal(c.isFollowing("gone"), false);
	again.drop();
	again = await nextSocket(3);
	again.open();
	assert.deepEqual(again.sent, [], "nothing to resume");
	c.close();
});

test("closed and unloaded sessions are not resumed", async () => {
	const { client: c, socket } = await connected();
	socket.deliver({ type: "agent_start", sessionId: "a", seq: 1 });
	socket.deliver({ type: "agent_start", sessionId: "b", seq: 1 });
	socket.deliver({ type: "agent_start", sessionId: "c", seq: 1 });
	const closed = c.commands.close_session({}, { sessionId: "a" });
	socket.answer("close_session", { closed: true, sessionId: "a", wasLoaded: true });
	await closed;
	socket.deliver({ type: "session_unloaded", sessionId: "b", seq: 2, reason: "evicted" });
	socket.drop();
	const again = await nextSocket(2);
	again.open();
	assert.deepEqual(
		again.sent.filter((f) => f.type === "subscribe").map((f) => f.sessionId),
		["c"],
	);
	c.close();
});

test("a connection refused before it ever opened goes offline with the reason and is not retried", async () => {
	const c = client();
	const statuses: StatusChange[] = [];
	c.onStatus((s) => statuses.push(s));
	const done = c.connect();
	FakeSocket.latest().drop();
	const error = await done.then(
		() => assert.fail("connected"),
		(e: unknown) => e,
	);
	assert.ok(error instanceof SkiffConnectionError);
	assert.equal(error.kind, "refused_or_down");
	assert.match(error.message, /wrong token\?/);
	assert.equal(statuses.at(-1)!.status, "offline");
	await settle();
	assert.equal(FakeSocket.made.length, 1, "no retry");
});

test("after a connection, failed attempts are retried, unless the refusal is final (a refused token)", async () => {
	const { client: c, socket } = await connected();
	socket.drop();
	const second = await nextSocket(2);
	second.drop(); // refused or not running: retried
	const third = await nextSocket(3);
	third.refusal = { kind: "unauthorized", status: 401, message: "the service refused the token (HTTP 401)", final: true };
	third.drop();
	await settle();
	assert.equal(c.status, "offline");
	assert.equal(FakeSocket.made.length, 3);
});

test("close() stops everything: a pending connect rejects, no retry follows", async () => {
	const c = client();
	const done = c.connect();
	c.close();
	await assert.rejects(done, (e: SkiffConnectionError) => e.kind === "closed");
	assert.equal(c.status, "offline");
});

test("without a WebSocket anywhere, the constructor says how to get one", () => {
	const global = globalThis as { WebSocket?: unknown };
	const saved = global.WebSocket;
	delete global.WebSocket;
	try {
		assert.throws(() => new SkiffClient({ url: URL }), /skiff\/client/);
	} finally {
		if (saved) global.WebSocket = saved;
	}
});

test("reconnects wait 1 s, 2 s, 4 s, 8 s, then 15 s each, and start over after a connection", (t) => {
	t.mock.timers.enable({ apis: ["setTimeout"] });
	const c = new SkiffClient({ url: URL, WebSocket: FakeSocket }); // the default backoff
	void c.connect();
	FakeSocket.latest().open();
	assert.equal(c.status, "connected");
	const retry = (wait: number, what: string) => {
		const count = FakeSocket.made.length;
		t.mock.timers.tick(wait - 1);
		assert.equal(FakeSocket.made.length, count, `no ${what} before ${wait} ms`);
		t.mock.timers.tick(1);
		assert.equal(FakeSocket.made.length, count + 1, `${what} after ${wait} ms`);
	};
	FakeSocket.latest().drop();
	for (const [i, wait] of [1000, 2000, 4000, 8000, 15_000, 15_000].entries()) {
		retry(wait, `retry ${i + 1}`);
		FakeSocket.latest().drop(); // still down
	}
	retry(15_000, "the retry that connects");
	FakeSocket.latest().open();
	assert.equal(c.status, "connected");
	FakeSocket.latest().drop();
	retry(1000, "the first retry after a connection");
	c.close();
});
