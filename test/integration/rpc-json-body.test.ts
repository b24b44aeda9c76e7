/**
 * A JSON body on /rpc is one command even when it is pretty-printed over several lines; JSONL (one command
 * per line, answered line by line) is for the ndjson/jsonl media types.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type ListenerHarness, startHarness } from "../support/listener-harness.js";

let harness: ListenerHarness;

before(async () => {
	harness = await startHarness();
});
after(() => harness.close());

const post = (body: string, type = "application/json") => fetch(`${harness.url}/rpc`, { method: "POST", headers: { "content-type": type }, body });

test("a pretty-printed JSON command gets one JSON response", async () => {
	const response = await post(JSON.stringify({ type: "no_such_command", id: "pretty" }, null, 2));
	assert.equal(response.status, 400);
	assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
	const reply = await response.json();
	assert.equal(reply.id, "pretty");
	assert.equal(reply.command, "no_such_command");
	assert.match(reply.error, /Unknown command: no_such_command/);
});

test("two JSON documents in an application/json body are a parse error; as JSONL they are answered line by line", async () => {
	const lines = `${JSON.stringify({ type: "one", id: "a" })}\n${JSON.stringify({ type: "two", id: "b" })}\n`;
	const refused = await post(lines);
	assert.equal(refused.status, 400);
	assert.equal((await refused.json()).code, "parse_error");
	const response = await post(lines, "application/x-ndjson");
	assert.equal(response.status, 200);
	assert.match(response.headers.get("content-type") ?? "", /^application\/x-ndjson/);
	const replies = (await response.text()).trim().split("\n").map((line) => JSON.parse(line));
	assert.deepEqual(replies.map((r) => [r.id, r.command]), [["a", "one"], ["b", "two"]]);
});
