import assert from "node:assert/strict";
import { test } from "node:test";
import { Type } from "typebox";
import { CommandRegistry, defineCommand, NoFields, NoResult } from "../../../src/protocol/command.js";
import { streamCommands } from "../../../src/protocol/commands/stream.js";
import { createDispatcher, MAX_ERROR_CHARS, MAX_ID_CHARS, MAX_SESSION_ID_CHARS } from "../../../src/protocol/dispatch.js";
import { echo, MAX_ECHO_CHARS } from "../../../src/protocol/echo.js";
import { EventStreams } from "../../../src/protocol/event-streams.js";
import { NO_EVENT_STREAM } from "../../../src/protocol/subscriptions.js";
import { redactSecrets } from "../../../src/shared/redact.js";
import { runtimeOfAnyId } from "../../support/fake-agent.js";

const failing = defineCommand({
	name: "fail_loudly",
	summary: "Throws a long message (tests only).",
	params: NoFields,
	result: NoResult,
	handler: () => {
		throw new Error("e".repeat(1024 * 1024));
	},
});

const streams = new EventStreams({ observe: () => () => undefined });
const { runtime } = await runtimeOfAnyId("s");
const dispatcher = createDispatcher(new CommandRegistry().register(...streamCommands, failing), { runtime, streams });
const HUGE = "h".repeat(1024 * 1024);
const send = (value: object) => dispatcher.dispatchValue(value, NO_EVENT_STREAM);

test("echo keeps short text and cuts long text to a prefix", () => {
	assert.equal(echo("ping"), "ping");
	assert.equal(echo("x".repeat(MAX_ECHO_CHARS)), "x".repeat(MAX_ECHO_CHARS));
	assert.equal(echo("x".repeat(MAX_ECHO_CHARS + 1)), `${"x".repeat(MAX_ECHO_CHARS)}…`);
});

test("no response carries a client's megabytes back", async () => {
	const responses = [
		await send({ type: HUGE, id: "a" }),
		await send({ type: "ping", id: "b", sessionId: HUGE }),
		await send({ type: "ping", id: "c", [HUGE]: 1 }),
		await send({ type: "fail_loudly", id: "d" }),
		await send({ type: "ping", id: HUGE }),
	];
	for (const response of responses) {
		assert.equal(response.success, false);
		assert.ok(JSON.stringify(response).length < MAX_ERROR_CHARS + 200, JSON.stringify(response).slice(0, 200));
	}
	assert.deepEqual(responses.map((r) => r.id), ["a", "b", "c", "d", undefined]);
	assert.match(responses[1]!.error!, new RegExp(`\`sessionId\` is longer than ${MAX_SESSION_ID_CHARS} characters`));
	assert.match(responses[2]!.error!, /unknown field `h+…`/);
	assert.match(responses[4]!.error!, new RegExp(`\`id\` is longer than ${MAX_ID_CHARS} characters`));
});

test("an id up to the limit is echoed exactly, on success and failure alike", async () => {
	const id = "é".repeat(MAX_ID_CHARS);
	assert.equal((await send({ type: "ping", id })).id, id);
	assert.equal((await send({ type: "nope", id })).id, id);
	assert.equal((await send({ type: "ping", id, extra: 1 })).id, id);
});

test("refuse() answers a frame refused before dispatch with its type and id when readable", () => {
	assert.deepEqual(dispatcher.refuse('{"type":"ping","id":"p1"}', "busy", "limit"), { id: "p1", type: "response", command: "ping", success: false, error: "busy", code: "limit" });
	assert.equal(dispatcher.refuse(JSON.stringify({ type: HUGE, id: "x".repeat(MAX_ID_CHARS + 1) }), "busy", "limit").id, undefined);
	assert.equal(dispatcher.refuse(JSON.stringify({ type: HUGE }), "busy", "limit").command, echo(HUGE));
	assert.equal(dispatcher.refuse("{broken", "busy", "limit").command, "parse");
	assert.equal(dispatcher.refuse("[1]", "busy", "limit").command, "parse");
});

test("a value nested a hundred thousand levels deep is refused with a short echo, not a stack overflow", async () => {
	const pick = defineCommand({
		name: "pick_one",
		summary: "Takes one of two modes (tests only).",
		params: Type.Object({ mode: Type.Enum(["fast", "slow"]) }, { additionalProperties: false }),
		result: NoResult,
		handler: () => undefined,
	});
	const picky = createDispatcher(new CommandRegistry().register(pick), { runtime, streams });
	let deep: unknown = 1;
	for (let i = 0; i < 100_000; i++) deep = i % 2 ? { a: deep } : [deep];
	for (const mode of [deep, Array.from({ length: 100_000 }, (_, i) => i), { [HUGE]: deep }]) {
		const response = await picky.dispatchValue({ type: "pick_one", id: "deep", mode }, NO_EVENT_STREAM);
		assert.equal(response.success, false);
		assert.equal((response as { code?: string }).code, "invalid_command");
		assert.match(response.error!, /`mode` must be one of fast, slow \(got [[{]/);
		assert.ok(response.error!.length < 200, response.error);
	}
});

test("a secret straddling the cut of a long error message is masked, not shown in half", async () => {
	let message = "";
	const throwing = defineCommand({
		name: "fail_with",
		summary: "Throws the message set by the test (tests only).",
		params: NoFields,
		result: NoResult,
		handler: () => {
			throw new Error(message);
		},
	});
	const failer = createDispatcher(new CommandRegistry().register(throwing), { runtime, streams });
	const key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789";
	for (const before of [MAX_ERROR_CHARS - 5, MAX_ERROR_CHARS - 20, MAX_ERROR_CHARS - key.length + 2]) {
		message = `${"w ".repeat(before / 2)}${before % 2 ? " " : ""}${key} and more`;
		const response = await failer.dispatchValue({ type: "fail_with", id: "f" }, NO_EVENT_STREAM);
		assert.equal(response.success, false);
		assert.ok(!response.error!.includes(key.slice(0, 4)), `cut ${MAX_ERROR_CHARS - before} characters into the key: …${response.error!.slice(-30)}`);
		const whole = redactSecrets(message);
		assert.equal(response.error, whole.length > MAX_ERROR_CHARS ? `${whole.slice(0, MAX_ERROR_CHARS)}…` : whole, "as the whole message redacted, then cut");
	}
});
