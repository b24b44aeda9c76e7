/**
 * The fake model server: its SSE over plain fetch. Timed (run-suite.ts's TIMED_FILES: its parse time, its
 * pacing), so it runs alone; end to end through pi's own client is fake-openai-pi.test.ts, which runs among others.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
	FAKE_MODEL,
	FAKE_PROVIDER,
	FAKE_REASONER,
	type FakeOpenAiServer,
	parseScript,
	type RecordedRequest,
	startFakeOpenAi,
	writeFakeModelsJson,
} from "../support/fake-openai.js";

let server: FakeOpenAiServer;
const seen: RecordedRequest[] = [];
const root = mkdtempSync(join(tmpdir(), "skiff-fake-openai-"));

before(async () => {
	server = await startFakeOpenAi({ onRequest: (request) => void seen.push(request) });
});
after(async () => {
	await server.close();
	rmSync(root, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------------------------
// Over plain fetch

interface Chunk {
	choices: Array<{ delta: Record<string, any>; finish_reason: string | null }>;
	usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

const userMessage = (content: string) => [{ role: "system", content: "be brief" }, { role: "user", content }];

function post(messages: unknown[], extra: Record<string, unknown> = {}, signal?: AbortSignal): Promise<Response> {
	return fetch(`${server.url}/chat/completions`, {
		method: "POST",
		headers: { "content-type": "application/json", authorization: "Bearer fake-key" },
		body: JSON.stringify({ model: FAKE_MODEL, stream: true, stream_options: { include_usage: true }, messages, ...extra }),
		signal,
	});
}

/** The data events of an SSE body, parsed; the `[DONE]` terminator must be the last one. */
async function events(response: Response): Promise<Chunk[]> {
	assert.equal(response.status, 200);
	assert.match(response.headers.get("content-type") ?? "", /^text\/event-stream/);
	const text = await response.text();
	const data = text
		.split("\n\n")
		.filter((block) => block.trim())
		.map((block) => {
			assert.ok(block.startsWith("data: "), `not an SSE data event: ${block.slice(0, 80)}`);
			return block.slice("data: ".length);
		});
	assert.equal(data.pop(), "[DONE]");
	return data.map((d) => JSON.parse(d) as Chunk);
}

async function chat(content: string | unknown[], extra?: Record<string, unknown>) {
	const chunks = await events(await post(typeof content === "string" ? userMessage(content) : content, extra));
	const deltas = chunks.flatMap((c) => c.choices.map((choice) => choice.delta));
	return {
		chunks,
		text: deltas.map((d) => d.content ?? "").join(""),
		textDeltas: deltas.filter((d) => d.content).length,
		thinking: deltas.map((d) => d.reasoning_content ?? "").join(""),
		toolCalls: deltas.flatMap((d) => d.tool_calls ?? []),
		finish: chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean),
		usage: chunks.find((c) => c.usage)?.usage,
	};
}

test("REPLY streams word deltas that join to the text, then stop and a usage-only chunk", async () => {
	const r = await chat("please answer\nREPLY hello there  world\nmore prose");
	assert.equal(r.text, "hello there  world");
	assert.equal(r.textDeltas, 3);
	assert.deepEqual(r.finish, ["stop"]);
	assert.equal(r.chunks[0]!.choices[0]!.delta.role, "assistant");
	const last = r.chunks.at(-1)!;
	assert.deepEqual(last.choices, []);
	assert.ok(r.usage && r.usage.completion_tokens > 0 && r.usage.total_tokens === r.usage.prompt_tokens + r.usage.completion_tokens);
});

test("without include_usage there is no usage chunk; without directives the reply echoes the message", async () => {
	const r = await chat("just a question with no directive", { stream_options: undefined });
	assert.equal(r.text, "ok: just a question with no directive");
	assert.equal(r.usage, undefined);
	assert.ok(r.chunks.every((c) => c.choices.length === 1));
});

test("REPLY_JSON carries newlines; array content parts are read as text", async () => {
	const r = await chat([{ role: "user", content: [{ type: "text", text: `REPLY_JSON ${JSON.stringify("line 1\n\n- item")}` }] }]);
	assert.equal(r.text, "line 1\n\n- item");
});

test("the latest user message holding a directive scripts the reply: hidden context after a prompt keeps it, a dropped earlier prompt does not", async () => {
	const withContext = await chat([{ role: "user", content: "REPLY from the prompt" }, { role: "user", content: "hidden context\n[>] t1 a task" }]);
	assert.equal(withContext.text, "from the prompt");
	const afterDropped = await chat([{ role: "user", content: "ERROR 400 refused" }, { role: "user", content: "REPLY second try" }]);
	assert.equal(afterDropped.text, "second try");
	const noDirective = await chat([{ role: "user", content: "REPLY earlier" }, { role: "assistant", content: "earlier" }, { role: "user", content: "plain" }]);
	assert.equal(noDirective.text, "ok: plain", "only the user messages right before the last one count");
});

test("THINK streams reasoning_content deltas before the text", async () => {
	const r = await chat("THINK weighing the options\nREPLY decided");
	assert.equal(r.thinking, "weighing the options");
	assert.equal(r.text, "decided");
	const kinds = r.chunks.flatMap((c) => c.choices.map((ch) => ("reasoning_content" in ch.delta ? "think" : ch.delta.content ? "text" : "")));
	assert.ok(kinds.lastIndexOf("think") < kinds.indexOf("text"));
});

test("CHUNKS cuts text, thinking and tool call arguments into pieces of a size, or of 1 to a size by a seed", async () => {
	const text = "sk-ant-api03-Zq8vK2mXp4Lr7Tn1Wb5Yc9Hd3Fg6Js0AeUo in pieces";
	const fixed = await chat(`THINK ${text}\nREPLY ${text}\nCHUNKS 3`);
	assert.equal(fixed.text, text);
	assert.equal(fixed.thinking, text);
	assert.equal(fixed.textDeltas, Math.ceil(text.length / 3));
	const seeded = await chat(`REPLY ${text}\nRUN echo hi\nCHUNKS 4 7`);
	const again = await chat(`REPLY ${text}\nRUN echo hi\nCHUNKS 4 7`);
	assert.equal(seeded.text, text);
	const sizes = (r: typeof seeded) => r.chunks.flatMap((c) => c.choices.map((ch) => ch.delta.content ?? "")).filter(Boolean).map((d) => d.length);
	assert.deepEqual(sizes(seeded), sizes(again), "the same seed, the same pieces");
	assert.ok(sizes(seeded).every((n) => n >= 1 && n <= 4) && new Set(sizes(seeded)).size > 1);
	const args = seeded.toolCalls.map((t) => t.function?.arguments ?? "");
	assert.equal(args.join(""), JSON.stringify({ command: "echo hi" }));
	assert.ok(args.slice(1).every((a) => a.length >= 1 && a.length <= 4));
});

test("RUN streams a bash tool call in argument pieces and finishes with tool_calls", async () => {
	const r = await chat("RUN echo 'hi there'");
	assert.deepEqual(r.finish, ["tool_calls"]);
	assert.equal(r.text, "");
	const [first, ...rest] = r.toolCalls;
	assert.equal(first.index, 0);
	assert.match(first.id, /^call_/);
	assert.equal(first.type, "function");
	assert.equal(first.function.name, "bash");
	assert.ok(rest.length >= 2, "arguments come in several chunks");
	assert.ok(rest.every((c) => c.index === 0 && c.id === undefined && c.function.name === undefined));
	const args = r.toolCalls.map((c) => c.function.arguments).join("");
	assert.deepEqual(JSON.parse(args), { command: "echo 'hi there'" });
});

test("CALL and RUN lines make parallel tool calls; a REPLY is streamed before them", async () => {
	const r = await chat('REPLY let me look\nCALL read {"path": "a.txt"}\nRUN ls');
	assert.equal(r.text, "let me look");
	const byIndex = new Map<number, { name: string; args: string }>();
	for (const c of r.toolCalls) {
		const entry = byIndex.get(c.index) ?? { name: "", args: "" };
		entry.name ||= c.function.name ?? "";
		entry.args += c.function.arguments ?? "";
		byIndex.set(c.index, entry);
	}
	assert.deepEqual([...byIndex.keys()], [0, 1]);
	assert.equal(byIndex.get(0)!.name, "read");
	assert.deepEqual(JSON.parse(byIndex.get(0)!.args), { path: "a.txt" });
	assert.equal(byIndex.get(1)!.name, "bash");
	assert.deepEqual(JSON.parse(byIndex.get(1)!.args), { command: "ls" });
	assert.deepEqual(r.finish, ["tool_calls"]);
});

test("after a tool result the reply reports it (or follows AFTER_TOOL), with no new tool call", async () => {
	const history = (directives: string) => [
		{ role: "user", content: directives },
		{ role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "bash", arguments: '{"command":"echo hi"}' } }] },
		{ role: "tool", tool_call_id: "call_1", content: `hi\n${"y".repeat(300)}` },
	];
	const plain = await chat(history("RUN echo hi"));
	assert.equal(plain.text, `Tool result received: hi\n${"y".repeat(197)}`);
	assert.equal(plain.toolCalls.length, 0);
	assert.deepEqual(plain.finish, ["stop"]);
	const scripted = await chat(history("RUN echo hi\nAFTER_TOOL all done here"));
	assert.equal(scripted.text, "all done here");
});

test("LOOP_CALL calls its tool in every reply, after tool results too", async () => {
	const loop = 'REPLY ignored\nLOOP_CALL ls {"path": "."}';
	const toolRound = [
		{ role: "user", content: loop },
		{ role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "ls", arguments: '{"path":"."}' } }] },
		{ role: "tool", tool_call_id: "call_1", content: "a.txt" },
	];
	for (const r of [await chat(loop), await chat(toolRound)]) {
		assert.equal(r.text, "", "nothing but the call");
		assert.deepEqual(r.finish, ["tool_calls"]);
		assert.equal(r.toolCalls[0].function.name, "ls");
		assert.deepEqual(JSON.parse(r.toolCalls.map((c) => c.function.arguments ?? "").join("")), { path: "." });
	}
});

test("directive lines are read in time linear in their length: a CALL whose JSON holds 300 KB of spaces", () => {
	const args = JSON.stringify({ op: "learn", content: `a${" ".repeat(300_000)}b` });
	// Timed as the redaction fuzz is, per MiB against a bound far above the linear cost: it took 68 s before.
	const started = performance.now();
	const script = parseScript(`CALL memory ${args}   \nREPLY  spaced out  \n${" ".repeat(300_000)}x`);
	const ms = performance.now() - started;
	assert.ok(ms < 400, `${ms.toFixed(0)} ms for 0.6 MB (at most 400 ms, counted as one MiB)`);
	assert.deepEqual(script.toolCalls, [{ name: "memory", arguments: args }]);
	assert.equal(script.reply, "spaced out");
	assert.equal(parseScript("REPLY a\rb").reply, undefined, "a carriage return inside the argument is no directive, as before");
});

test("BENCH streams n one-character deltas, each its own SSE event", async () => {
	const r = await chat("BENCH 20000");
	assert.equal(r.textDeltas, 20000);
	assert.equal(r.text, "x".repeat(20000));
	assert.ok(r.chunks.every((c) => c.choices.length !== 1 || (c.choices[0]!.delta.content ?? "").length <= 1));
	const record = server.requests.at(-1)!;
	assert.ok(record.firstChunkAt! >= record.receivedAt && record.lastByteAt! >= record.firstChunkAt!);
});

test("BENCH with a size streams deltas of that many characters", async () => {
	const r = await chat("BENCH 30 5000");
	assert.equal(r.textDeltas, 30);
	assert.equal(r.text, "x".repeat(30 * 5000));
	assert.ok(r.chunks.every((c) => c.choices.length !== 1 || [0, 5000].includes((c.choices[0]!.delta.content ?? "").length)));
});

test("ERROR answers with the status and an OpenAI-style error body, telling the SDK not to retry", async () => {
	for (const [status, type] of [[400, "invalid_request_error"], [429, "rate_limit_error"], [503, "server_error"]] as const) {
		const response = await post(userMessage(`ERROR ${status} the model refused this request`));
		assert.equal(response.status, status);
		assert.equal(response.headers.get("x-should-retry"), "false");
		const body = (await response.json()) as { error: { message: string; type: string } };
		assert.equal(body.error.message, "the model refused this request");
		assert.equal(body.error.type, type);
	}
});

test("PAUSE holds after the first delta; SLOW spaces every delta", async () => {
	let started = performance.now();
	const paused = await chat("REPLY a b\nPAUSE 250");
	assert.equal(paused.text, "a b");
	assert.ok(performance.now() - started >= 240);
	started = performance.now();
	await chat("REPLY a b c d\nSLOW 60");
	assert.ok(performance.now() - started >= 4 * 60 - 10);
});

test("HOLD stops before the last delta until its name is released; a released name holds nothing; a client that leaves ends the wait", async () => {
	const response = await post(userMessage("REPLY first then the rest\nHOLD gate-a"));
	const reader = response.body!.getReader();
	let streamed = "";
	const decoder = new TextDecoder();
	while (!streamed.includes('"content":" the"')) {
		const chunk = await reader.read();
		assert.equal(chunk.done, false, "the reply ended");
		streamed += decoder.decode(chunk.value);
	}
	// Held: nothing more comes until the release (the ping below is answered meanwhile: only this reply waits).
	let more = false;
	const next = reader.read().then((chunk) => ((more = true), chunk));
	assert.equal((await chat("REPLY meanwhile")).text, "meanwhile");
	assert.equal(more, false, "the held reply sent nothing more");
	assert.doesNotMatch(streamed, /"content":" rest"/);
	server.release("gate-a");
	streamed += decoder.decode((await next).value);
	for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) streamed += decoder.decode(chunk.value);
	assert.match(streamed, /"content":" rest"/);
	assert.match(streamed, /\[DONE\]/);
	assert.equal((await chat("REPLY again\nHOLD gate-a")).text, "again", "a released name holds no later reply");

	const controller = new AbortController();
	const arrived = server.nextRequest();
	const left = await post(userMessage("REPLY never released\nHOLD gate-never"), {}, controller.signal);
	const record = await arrived;
	await left.body!.getReader().read();
	controller.abort();
	const deadline = Date.now() + 5000;
	while (record.lastByteAt === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
	assert.equal(record.aborted, true, "the reply ended when its client left");
});

test("a client that leaves mid-stream is noticed, without errors, and the request still gets lastByteAt", async () => {
	const controller = new AbortController();
	const arrived = server.nextRequest();
	const response = await post(userMessage("REPLY one two three four five six\nSLOW 200"), {}, controller.signal);
	const record = await arrived;
	const reader = response.body!.getReader();
	await reader.read();
	controller.abort();
	await reader.read().catch(() => undefined);
	const deadline = Date.now() + 2000;
	while (record.lastByteAt === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
	assert.equal(record.aborted, true);
	assert.ok(record.lastByteAt! - record.receivedAt < 1000, "the server stopped instead of sleeping through the script");
	// Still serving.
	assert.equal((await chat("REPLY still here")).text, "still here");
});

test("records requests in order, calls onRequest, lists models and 404s elsewhere", async () => {
	const before = server.requests.length;
	const nextOne = server.nextRequest();
	await chat("REPLY recorded");
	const record = await nextOne;
	assert.equal(server.requests.length, before + 1);
	assert.equal(server.requests.at(-1), record);
	assert.equal(seen.at(-1), record);
	assert.equal(record.body.messages.at(-1).content, "REPLY recorded");
	assert.equal(record.headers.authorization, "Bearer fake-key");
	assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
	const models = (await (await fetch(`${server.url}/models`)).json()) as { data: Array<{ id: string }> };
	assert.deepEqual(models.data.map((m) => m.id), [FAKE_MODEL, FAKE_REASONER]);
	assert.equal((await fetch(`${server.url}/completions`, { method: "POST", body: "{}" })).status, 404);
});

test("writeFakeModelsJson creates the directory and names provider fake with both models", () => {
	const agentDir = join(root, "nested", "agent");
	writeFakeModelsJson(agentDir, server.url);
	const json = JSON.parse(readFileSync(join(agentDir, "models.json"), "utf8"));
	const provider = json.providers[FAKE_PROVIDER];
	assert.equal(provider.baseUrl, server.url);
	assert.equal(provider.api, "openai-completions");
	assert.deepEqual(provider.models.map((m: { id: string }) => m.id), [FAKE_MODEL, FAKE_REASONER]);
});
