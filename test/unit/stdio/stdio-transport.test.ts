/**
 * --mode rpc's transport over the real dispatcher and runtime manager (with fake agents): JSON lines in and out,
 * the current session as the default, only its events on the output, and lifecycle commands switching it.
 */
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { RuntimeManager } from "../../../src/agent/runtime-manager.js";
import { createSchemaRegistry } from "../../../src/contract.js";
import { createDispatcher } from "../../../src/protocol/dispatch.js";
import { deferredDispatcher } from "../../../src/protocol/deferred-dispatcher.js";
import type { Dispatcher } from "../../../src/protocol/dispatch.js";
import { EventStreams } from "../../../src/protocol/event-streams.js";
import { piShaped, StdioTransport } from "../../../src/stdio/stdio-transport.js";
import { FakeCatalog, fakeOpener } from "../../support/fake-agent.js";

async function setup(options: { maxLineBytes?: number; maxConcurrentCommands?: number } = {}) {
	const catalog = new FakeCatalog();
	const { openSession, handles } = fakeOpener(catalog);
	const runtime = new RuntimeManager({ cwd: "/p", catalog, openSession });
	const streams = new EventStreams(runtime);
	const primary = await runtime.start({ kind: "new" });
	const dispatcher = createDispatcher(createSchemaRegistry(), { runtime, streams });
	let release!: (d: Dispatcher) => void;
	const ready = new Promise<Dispatcher>((resolve) => (release = resolve));
	const input = new PassThrough();
	const lines: any[] = [];
	const waiters = new Set<() => void>();
	const ends: string[] = [];
	const transport = new StdioTransport({
		dispatcher: deferredDispatcher(ready),
		input,
		output: {
			write: (text, done) => {
				for (const line of text.split("\n").filter(Boolean)) lines.push(JSON.parse(line));
				for (const wake of [...waiters]) wake();
				done();
			},
			onError: () => undefined,
		},
		onEnd: (reason) => {
			ends.push(reason);
			for (const wake of [...waiters]) wake();
		},
		...options,
	});
	const begin = () => {
		transport.start(dispatcher, primary.id);
		release(dispatcher);
	};
	const until = (found: () => boolean) =>
		new Promise<void>((resolve) => {
			const check = () => {
				if (!found()) return;
				waiters.delete(check);
				resolve();
			};
			waiters.add(check);
			check();
		});
	const send = (value: unknown) => input.write(`${typeof value === "string" ? value : JSON.stringify(value)}\n`);
	const response = async (id: string) => {
		await until(() => lines.some((l) => l.type === "response" && l.id === id));
		return lines.find((l) => l.type === "response" && l.id === id);
	};
	return { runtime, handles, primary, transport, input, lines, ends, begin, send, response, until };
}

test("commands sent before the core is ready wait for it and address the primary", async () => {
	const { primary, begin, send, response } = await setup();
	send({ type: "get_state", id: "early" });
	begin();
	assert.equal((await response("early")).data.sessionId, primary.id);
});

test("only the current session's events are sent; lifecycle commands make the session they return current", async () => {
	const { handles, primary, begin, send, response, lines, transport } = await setup();
	begin();
	handles[0]!.emit({ type: "agent_start" });
	send({ type: "new_session", id: "n" });
	const created = (await response("n")).data;
	assert.equal(created.cancelled, false);
	handles[0]!.emit({ type: "agent_end" }); // the old session: no longer followed
	handles[1]!.emit({ type: "agent_start" });
	send({ type: "get_state", id: "s" });
	assert.equal((await response("s")).data.sessionId, created.sessionId, "commands without sessionId address the new session");
	send({ type: "get_state", sessionId: primary.id, id: "p" });
	assert.equal((await response("p")).data.sessionId, primary.id, "a sessionId still addresses any session");
	handles[0]!.emit({ type: "agent_start" }); // ... without following it
	send({ type: "switch_session", sessionPath: primary.id, id: "back" });
	await response("back");
	handles[1]!.emit({ type: "agent_end" }); // no longer current
	handles[0]!.emit({ type: "turn_start" });
	send({ type: "ping", id: "last" });
	await response("last");
	const events = lines.filter((l) => l.type !== "response").map((l) => `${l.sessionId === primary.id ? "primary" : "new"}:${l.type}`);
	assert.deepEqual(events, ["primary:agent_start", "new:agent_start", "primary:turn_start"]);
	send({ type: "subscribe", id: "sub" });
	assert.equal((await response("sub")).code, "forbidden", "subscribe is for /ws");
	transport.close();
});

test("bad lines get parse errors, blank lines are skipped, over-long lines are refused, and too many in flight get `limit`", async () => {
	const { begin, send, lines, until, input, ends, handles, transport } = await setup({ maxLineBytes: 64, maxConcurrentCommands: 1 });
	begin();
	send("");
	send("   ");
	send("not json");
	send(`{"type":"ping","pad":"${"x".repeat(100)}"}`);
	await until(() => lines.length >= 2);
	assert.deepEqual(
		lines.map((l) => [l.command, l.code]),
		[
			["parse", "parse_error"],
			["parse", "parse_error"],
		],
	);
	assert.ok(lines.some((l) => /over the limit of 64 bytes/.test(l.error)));
	assert.ok(lines.some((l) => /Failed to parse command: Unexpected token/.test(l.error)));
	await transport.idle();
	// One command in flight at a time: a bash that waits keeps the slot.
	let finish: (() => void) | undefined;
	let started!: () => void;
	const running = new Promise<void>((resolve) => (started = resolve));
	handles[0]!.runBash = (command) => {
		started();
		return new Promise((resolve) => (finish = () => resolve({ output: command, exitCode: 0, cancelled: false, truncated: false })));
	};
	send({ type: "bash", command: "wait", id: "b" });
	send({ type: "ping", id: "p" });
	await until(() => lines.some((l) => l.id === "p"));
	assert.equal(lines.find((l) => l.id === "p").code, "limit");
	await running;
	finish!();
	await until(() => lines.some((l) => l.id === "b"));
	input.end();
	await until(() => ends.length > 0);
	assert.deepEqual(ends, ["end of input"]);
});

test("in pi's mode a delta of block 0 carries contentIndex 0, as pi's clients expect", () => {
	const event = { type: "message_update", sessionId: "s", seq: 3, assistantMessageEvent: { type: "text_delta", delta: "Hi" } };
	const published = { seq: 3, event, json: JSON.stringify(event) };
	assert.deepEqual(JSON.parse(piShaped(published)).assistantMessageEvent, { type: "text_delta", contentIndex: 0, delta: "Hi" });
	const other = { type: "agent_end", sessionId: "s", seq: 4, messageCount: 2 };
	assert.equal(piShaped({ seq: 4, event: other, json: JSON.stringify(other) }), JSON.stringify(other));
});
