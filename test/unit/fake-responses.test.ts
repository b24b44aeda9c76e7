/** The fake model's Responses API (fake-responses.ts), which the streaming benchmark's codex side talks to. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type FakeOpenAiServer, startFakeOpenAi } from "../support/fake-openai.js";

let server: FakeOpenAiServer;
before(async () => {
	server = await startFakeOpenAi();
});
after(() => server.close());

const userInput = (text: string) => [
	{ type: "message", role: "developer", content: [{ type: "input_text", text: "be brief" }] },
	{ type: "message", role: "user", content: [{ type: "input_text", text }] },
];

/** The events of a streamed answer, in order (the `[DONE]` line dropped). */
async function stream(input: unknown): Promise<Array<Record<string, any>>> {
	const response = await fetch(`${server.url}/responses`, {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify({ model: "fake-model", stream: true, input }),
	});
	assert.equal(response.status, 200);
	const lines = (await response.text()).split("\n\n").filter((line) => line.startsWith("data: ") && line !== "data: [DONE]");
	return lines.map((line) => JSON.parse(line.slice("data: ".length)));
}

test("a REPLY streams as output_text deltas in one message item, closed whole, then response.completed", async () => {
	const events = await stream(userInput("REPLY hello there world"));
	assert.deepEqual(
		events.map((event) => event.type),
		["response.created", "response.output_item.added", ...Array(3).fill("response.output_text.delta"), "response.output_item.done", "response.completed"],
	);
	const deltas = events.filter((event) => event.type === "response.output_text.delta").map((event) => event.delta);
	assert.deepEqual(deltas, ["hello", " there", " world"]);
	const done = events.find((event) => event.type === "response.output_item.done")!;
	assert.deepEqual(done.item.content, [{ type: "output_text", text: "hello there world", annotations: [] }]);
	const completed = events.at(-1)!.response;
	assert.equal(completed.status, "completed");
	assert.ok(completed.usage.output_tokens >= 3);
	assert.deepEqual(events.map((event) => event.sequence_number), [...events.keys()]);
});

test("BENCH streams one delta event per requested delta", async () => {
	const events = await stream(userInput("BENCH 500"));
	assert.equal(events.filter((event) => event.type === "response.output_text.delta").length, 500);
});

test("a RUN is a function_call item whose argument deltas join to the arguments; its output selects AFTER_TOOL", async () => {
	const events = await stream(userInput("RUN ls -la\nAFTER_TOOL listed"));
	const done = events.filter((event) => event.type === "response.output_item.done").map((event) => event.item);
	const call = done.find((item) => item.type === "function_call")!;
	assert.equal(call.name, "bash");
	assert.deepEqual(JSON.parse(call.arguments), { command: "ls -la" });
	const pieces = events.filter((event) => event.type === "response.function_call_arguments.delta").map((event) => event.delta);
	assert.equal(pieces.join(""), call.arguments);

	const input = [...userInput("RUN ls -la\nAFTER_TOOL listed"), call, { type: "function_call_output", call_id: call.call_id, output: "a b c" }];
	const after = await stream(input);
	const text = after.filter((event) => event.type === "response.output_text.delta").map((event) => event.delta);
	assert.equal(text.join(""), "listed");
});

test("ERROR answers with the status and an OpenAI-style error body", async () => {
	const response = await fetch(`${server.url}/responses`, {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify({ model: "fake-model", stream: true, input: userInput("ERROR 429 slow down") }),
	});
	assert.equal(response.status, 429);
	assert.equal((await response.json()).error.message, "slow down");
});
