/**
 * SkiffClient against the real listener and the fake model: typed calls and events, a refused token, resuming
 * a run after the connection drops (replayed, nothing lost or repeated), a resync after the listener restarts,
 * and the package's Node entry imported as a consumer would.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import WebSocket from "ws";
import {
	COMMANDS_IN_FLIGHT,
	type EventOf,
	type EventType,
	PROTOCOL_VERSION,
	type ResyncNotice,
	SkiffClient,
	SkiffCommandError,
	SkiffConnectionError,
	type SkiffEvent,
} from "../../src/client/node.js";
import { startFakeOpenAi, writeFakeModelsJson, type FakeOpenAiServer } from "../support/fake-openai.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { portForRestart } from "../support/restart-port.js";

/** A short reconnect wait keeps the tests quick; the default backoff is covered by the unit and browser tests. */
const QUICK_RECONNECT = { delayMs: () => 100 };

let model: FakeOpenAiServer;
let agentDir: string;
let skiff: SkiffProcess;

before(async () => {
	model = await startFakeOpenAi();
	agentDir = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	skiff = await startSkiff({ agentDir, cwd: tempDir(), args: ["--model", "fake/fake-model"] });
});

after(async () => {
	await skiff?.stop();
	await model?.close();
});

/** Resolves with the next event of `type` (matching `accept`), listening from now on. */
function nextEvent<T extends EventType>(client: SkiffClient, type: T, accept: (event: EventOf<T>) => boolean = () => true): Promise<EventOf<T>> {
	return new Promise((resolve) => {
		const stop = client.on(type, (event) => {
			if (!accept(event)) return;
			stop();
			resolve(event);
		});
	});
}

/** Collects the text deltas of one session, and every seq seen. */
function collect(client: SkiffClient, sessionId: () => string | undefined): { text: () => string; events: SkiffEvent[] } {
	const events: SkiffEvent[] = [];
	client.onEvent((event) => {
		if (event.sessionId === sessionId()) events.push(event);
	});
	const text = () =>
		events
			.map((e) => (e.type === "message_update" && e.assistantMessageEvent.type === "text_delta" ? e.assistantMessageEvent.delta : ""))
			.join("");
	return { text, events };
}

function assertIncreasing(events: SkiffEvent[]): void {
	for (let i = 1; i < events.length; i++) assert.ok(events[i]!.seq > events[i - 1]!.seq, `seq ${events[i]!.seq} after ${events[i - 1]!.seq}: no repeat, in order`);
}

test("connects, calls typed commands, and streams a prompt's typed events to agent_end", { timeout: 60_000 }, async () => {
	const client = new SkiffClient({ url: skiff.wsUrl });
	try {
		await client.connect();
		assert.equal(client.status, "connected");
		const state = await client.commands.get_state();
		assert.equal(state.protocolVersion, PROTOCOL_VERSION);
		assert.equal(state.model?.id, "fake-model");
		const { text, events } = collect(client, () => state.sessionId);
		const ended = nextEvent(client, "agent_end");
		await client.call("prompt", { message: "REPLY typed events all the way" }, { sessionId: state.sessionId });
		const end = await ended;
		assert.equal(end.sessionId, state.sessionId);
		assert.equal(text(), "typed events all the way");
		const types = events.map((e) => e.type);
		for (const type of ["agent_start", "message_start", "message_update", "message_end", "agent_end"]) assert.ok(types.includes(type as EventType), `saw ${type}`);
		assertIncreasing(events);

		const failure = await client.commands.switch_session({ sessionPath: "no-such-session" }).then(
			() => assert.fail("switched"),
			(error: unknown) => error,
		);
		assert.ok(failure instanceof SkiffCommandError);
		assert.equal(failure.command, "switch_session");
		assert.equal(typeof failure.code, "string");
		assert.ok(failure.message.length > 0);
	} finally {
		client.close();
	}
});

test("more commands at once than the service takes in flight wait their turn in the client: none is refused", { timeout: 60_000 }, async () => {
	const client = new SkiffClient({ url: skiff.wsUrl });
	try {
		await client.connect();
		const calls = Array.from({ length: COMMANDS_IN_FLIGHT * 3 }, (_, n) => (n % 2 ? client.call("ping", {}) : client.commands.get_state()));
		const outcomes = await Promise.allSettled(calls);
		assert.deepEqual(
			outcomes.filter((o) => o.status === "rejected").map((o) => String((o as PromiseRejectedResult).reason)),
			[],
			"every command answered",
		);
	} finally {
		client.close();
	}
});

test("a wrong token is reported as refused, a missing one as required; the right one connects", { timeout: 60_000 }, async () => {
	const dir = tempDir();
	writeFileSync(join(dir, "token"), "the-right-token", { mode: 0o600 });
	const guarded = await startSkiff({ agentDir: tempDir(), args: ["--listen-token-file", join(dir, "token")] });
	try {
		for (const [token, expected] of [
			["a-wrong-token", /the service refused the token \(HTTP 401/],
			[undefined, /the service requires a token \(HTTP 401/],
		] as const) {
			const client = new SkiffClient({ url: guarded.wsUrl, token });
			const error = await client.connect().then(
				() => assert.fail("connected"),
				(e: unknown) => e,
			);
			assert.ok(error instanceof SkiffConnectionError);
			assert.equal(error.kind, "unauthorized");
			assert.equal(error.status, 401);
			assert.match(error.message, expected);
			assert.doesNotMatch(error.message, /a-wrong-token/, "the token is never repeated");
			assert.equal(client.status, "offline");
		}
		const client = new SkiffClient({ url: guarded.wsUrl, token: "the-right-token" });
		await client.connect();
		assert.equal((await client.commands.ping()).pong, true);
		client.close();
	} finally {
		await guarded.stop();
	}
});

test("after the connection drops mid-run, the client resumes by seq: the reply arrives whole, nothing repeated", { timeout: 60_000 }, async () => {
	// A socket class that lets the test cut the connection, and shows which responses arrived.
	const sockets: WebSocket[] = [];
	const answered: string[] = [];
	const resubscribed: Array<{ replayed: number; resync: boolean }> = [];
	class Cuttable extends WebSocket {
		constructor(url: string, protocols?: string | string[]) {
			super(url, protocols);
			sockets.push(this);
			this.on("message", (data) => {
				const frame = JSON.parse(String(data));
				if (frame.type === "response") answered.push(frame.command);
				if (frame.type === "response" && frame.command === "subscribe") resubscribed.push(frame.data);
			});
		}
	}
	// Away for 300 ms while deltas come every 40 ms: some are certainly missed, and must be replayed.
	const client = new SkiffClient({ url: skiff.wsUrl, WebSocket: Cuttable, reconnect: { delayMs: () => 300 } });
	const resyncs: ResyncNotice[] = [];
	client.onResync((notice) => resyncs.push(notice));
	let sessionId: string | undefined;
	client.on("agent_start", (event) => (sessionId ??= event.sessionId));
	const { text, events } = collect(client, () => sessionId);
	try {
		await client.connect();
		const reply = Array.from({ length: 40 }, (_, i) => `word${i + 1}`).join(" ");
		const ended = nextEvent(client, "agent_end");
		// No sessionId and no get_state from the application: the client learns the epoch by itself.
		await client.commands.prompt({ message: `REPLY ${reply}\nSLOW 40` });
		await new Promise<void>((resolve) => {
			const stop = client.on("message_update", () => {
				if (events.length < 6 || !answered.includes("get_state")) return;
				stop();
				resolve();
			});
		});
		const reconnected = new Promise<void>((resolve) => client.onStatus((change) => change.status === "connected" && resolve()));
		sockets.at(-1)!.terminate(); // the connection drops; the run goes on in the service
		await reconnected;
		await ended;
		assert.equal(sockets.length, 2, "one reconnect");
		assert.deepEqual(resyncs, [], "resumed by replay, not by reload");
		assert.equal(resubscribed.length, 1);
		assert.equal(resubscribed[0]!.resync, false);
		assert.ok(resubscribed[0]!.replayed > 0, "the events missed while away were replayed");
		assert.equal(text(), reply, "no delta lost, none repeated");
		assertIncreasing(events);
		assert.equal(events.at(-1)!.type, "agent_end");
	} finally {
		client.close();
	}
});

test("after the listener restarts, the epoch changed: the client announces a resync and the reload has the transcript", { timeout: 90_000 }, async () => {
	const listen = `127.0.0.1:${await portForRestart()}`;
	// Its own agent directory: the file's service runs on the shared one, and one agent directory serves one skiff.
	const agentDir = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	const cwd = tempDir();
	const args = ["--model", "fake/fake-model", "--session-id", "client-restart"];
	let service = await startSkiff({ agentDir, cwd, listen, args });
	const client = new SkiffClient({ url: service.wsUrl, reconnect: QUICK_RECONNECT });
	try {
		await client.connect();
		const { sessionId, epoch } = await client.commands.get_state();
		const first = nextEvent(client, "agent_end");
		await client.commands.prompt({ message: "REPLY before the restart" }, { sessionId });
		await first;

		const notice = new Promise<ResyncNotice>((resolve) => client.onResync(resolve));
		const lost = new Promise<void>((resolve) => client.onStatus((change) => change.status === "reconnecting" && resolve()));
		assert.equal(await service.stop("SIGTERM"), 0);
		await lost;
		service = await startSkiff({ agentDir, cwd, listen, args });
		assert.deepEqual(await notice, { sessionId });
		assert.notEqual((await client.commands.get_state({}, { sessionId })).epoch, epoch, "a new numbering");

		const snapshot = await client.reloadSession(sessionId);
		assert.deepEqual(
			snapshot.messages.map((m) => m.role),
			["user", "assistant"],
		);
		const { text, events } = collect(client, () => sessionId);
		const second = nextEvent(client, "agent_end");
		await client.commands.prompt({ message: "REPLY after the restart" }, { sessionId });
		await second;
		assert.equal(text(), "after the restart");
		assert.ok(events.every((e) => e.seq > snapshot.seq), "only events after the snapshot");
		assertIncreasing(events);
	} finally {
		client.close();
		await service.stop();
	}
});

test('imported as a consumer would, "skiff/client" is the Node entry and needs no WebSocket passed', { timeout: 60_000 }, async () => {
	assert.match(import.meta.resolve("skiff/client"), /\/dist\/client\/node\.js$/);
	const consumer = await import("skiff/client");
	const client = new consumer.SkiffClient({ url: skiff.wsUrl });
	try {
		await client.connect();
		const pong = await client.commands.ping();
		assert.equal(pong.protocolVersion, consumer.PROTOCOL_VERSION);
	} finally {
		client.close();
	}
});
