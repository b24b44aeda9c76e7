/**
 * A fake OpenAI-compatible model server (Chat Completions with SSE streaming, and the Responses API for the
 * benchmark's codex side: fake-responses.ts), on loopback only, used by every integration test and benchmark. The text of the last user message (or, when it holds no directive, of the
 * nearest user message right before it that does: hidden context added to a prompt) scripts the reply, one
 * directive per line (lines that hold no directive are ignored):
 *
 *   REPLY <text>          stream <text> as word-sized text deltas
 *   REPLY_JSON <json>     the same, for a JSON string (so a reply can hold newlines and any character)
 *   THINK <text>          stream <text> as reasoning deltas first (`reasoning_content`, as llama.cpp does)
 *   RUN <command>         call the bash tool with {"command": <command>}
 *   CALL <tool> <json>    call any tool with these arguments
 *                         (several RUN/CALL lines make parallel tool calls, in line order; a REPLY is streamed
 *                         before them, as models do when they announce what they are about to do)
 *   AFTER_TOOL <text>     the reply once the tool results are back (default: `Tool result received: <output>`)
 *   LOOP_CALL <tool> <json>  call this tool with these arguments in EVERY reply, tool results or not: a model
 *                         that never stops calling tools (several lines make parallel calls; nothing else is
 *                         streamed), so only a bound of the service ends the run
 *   BENCH <n> [<chars>]   stream n text deltas of <chars> characters ("xxx…", default 1), one SSE event each,
 *                         as fast as the socket takes them
 *   PAUSE <ms>            wait this long after the first delta
 *   HOLD <name>           stream every delta but the last, then wait until the test calls `release(<name>)`
 *                         (at once when it already did): a reply that is streaming for exactly as long as a
 *                         test needs it to be, with all of its text shown but the last piece (which a page
 *                         holds back while it streams anyway)
 *   SLOW <ms>             wait this long after every delta
 *   CHUNKS <max> [<seed>] stream REPLY, THINK and AFTER_TOOL text and tool call arguments in pieces of 1 to <max>
 *                         characters, as a generator seeded with <seed> picks them (exactly <max> without one)
 *   ERROR <status> <msg>  answer with this HTTP status and an OpenAI-style error body (with `x-should-retry:
 *                         false`, so the OpenAI SDK inside pi does not silently retry 429 and 5xx answers)
 *
 * Without directives the reply is `ok: <first 80 characters of the message>`. When the last message is a tool
 * result, the reply is the AFTER_TOOL text, or else `Tool result received: <first 200 characters of the output>`
 * (trailing whitespace dropped). THINK, REPLY, RUN, CALL and BENCH apply only to the answer to the user message
 * itself, so a RUN cannot loop; PAUSE, HOLD and SLOW apply to both; LOOP_CALL, to every reply.
 *
 * What pi (pi-ai's openai-completions provider) reads from the stream:
 * - text: `choices[0].delta.content`;
 * - thinking: the first non-empty of `delta.reasoning_content`, `delta.reasoning`, `delta.reasoning_text`; the
 *   field name becomes the block's signature, and pi sends the thinking back under that same field on the
 *   assistant message of the next request. It is parsed whatever the model's `reasoning` flag or thinking level.
 * - tool calls: `delta.tool_calls[]`, matched by `index` (then `id`); the first chunk carries id and name, the
 *   `function.arguments` strings of later chunks are concatenated and parsed as partial JSON as they arrive;
 * - `finish_reason`: "stop" → stopReason "stop", "tool_calls" → "toolUse" (pi runs the tools only then);
 * - usage: `chunk.usage` on any chunk; pi asks for it with `stream_options.include_usage`, and like OpenAI this
 *   server then sends it in a last chunk with `choices: []`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import { join } from "node:path";
import { replyResponses } from "./fake-responses.js";
import { Prng } from "./prng.js";

export const FAKE_PROVIDER = "fake";
/** A plain model: pi clamps its thinking level to "off" (it still shows THINK deltas, which it parses anyway). */
export const FAKE_MODEL = "fake-model";
/** The same with `reasoning: true`, so that pi accepts thinking levels other than "off" for it. */
export const FAKE_REASONER = "fake-reasoner";

export interface RecordedRequest {
	/** The parsed JSON body of the chat completions (or Responses API) request. */
	body: any;
	headers: IncomingHttpHeaders;
	/** When the request body was fully read (epoch ms: performance.timeOrigin + performance.now()). */
	receivedAt: number;
	/** When the first SSE data chunk was written. */
	firstChunkAt?: number;
	/** When the response ended (or was given up because the client left). */
	lastByteAt?: number;
	/** True when the client closed the connection before the response was complete. */
	aborted?: boolean;
}

export interface FakeOpenAiServer {
	/** Base URL for models.json, e.g. http://127.0.0.1:PORT/v1 */
	url: string;
	port: number;
	/** Every chat completions and Responses API request, in arrival order. */
	requests: RecordedRequest[];
	/** Resolves with the next request to arrive (after this call). */
	nextRequest(): Promise<RecordedRequest>;
	/** Lets the replies held by `HOLD <name>` go on, and any later one that holds the same name. */
	release(name: string): void;
	close(): Promise<void>;
}

export interface FakeOpenAiOptions {
	/** Interface to listen on; default 127.0.0.1. The port is always chosen by the system. */
	host?: string;
	/** Called with each request once its body is read, before the reply; the reply waits for it. */
	onRequest?: (request: RecordedRequest) => void | Promise<void>;
}

const now = () => performance.timeOrigin + performance.now();

// ---------------------------------------------------------------------------------------------------------------
// Directives

interface ToolCallScript {
	name: string;
	/** The raw JSON text of the arguments, streamed as is. */
	arguments: string;
}

interface Script {
	reply?: string;
	think?: string;
	afterTool?: string;
	toolCalls: ToolCallScript[];
	/** Calls made in every reply, after tool results too (LOOP_CALL). */
	loopCalls: ToolCallScript[];
	bench?: number;
	/** Characters in each BENCH delta. */
	benchChars: number;
	pauseMs: number;
	/** HOLD: the name whose release the reply waits for before its last delta. */
	hold?: string;
	slowMs: number;
	error?: { status: number; message: string };
	/** CHUNKS: the size of text and argument pieces (at most `max`; random from `seed` when given). */
	chunks?: { max: number; seed?: number };
}

const DIRECTIVE_HEAD = /^\s*(REPLY_JSON|REPLY|THINK|RUN|LOOP_CALL|CALL|AFTER_TOOL|BENCH|PAUSE|HOLD|SLOW|CHUNKS|ERROR)\s+/;

/**
 * A directive line's name and argument (without trailing whitespace), or undefined. The trailing whitespace is
 * trimmed, not matched: a lazy argument before `\s*$` scanned a long run of spaces inside it (a CALL whose JSON
 * holds 300 KB of them) once from each of its characters, and the fake model never answered.
 */
function directiveOf(line: string): { directive: string; rest: string } | undefined {
	const head = DIRECTIVE_HEAD.exec(line);
	if (!head) return undefined;
	const rest = line.slice(head[0].length).trimEnd();
	return /[\r\u2028\u2029]/.test(rest) ? undefined : { directive: head[1]!, rest };
}

/** Splits `rest` at its first space: `["a", "b c"]` for "a b c", `[rest, undefined]` without a space. */
function firstWord(rest: string): [string, string | undefined] {
	const space = rest.search(/\s/);
	return space < 0 ? [rest, undefined] : [rest.slice(0, space), rest.slice(space + 1).trim()];
}

function nonNegative(text: string): number {
	const value = Number(text);
	return Number.isFinite(value) && value > 0 ? value : 0;
}

export function parseScript(text: string): Script {
	const script: Script = { toolCalls: [], loopCalls: [], benchChars: 1, pauseMs: 0, slowMs: 0 };
	for (const line of text.split(/\r?\n/)) {
		const match = directiveOf(line);
		if (!match) continue;
		const { directive, rest } = match;
		switch (directive) {
			case "REPLY":
				script.reply = rest;
				break;
			case "REPLY_JSON":
				script.reply = String(JSON.parse(rest));
				break;
			case "THINK":
				script.think = rest;
				break;
			case "AFTER_TOOL":
				script.afterTool = rest;
				break;
			case "RUN":
				script.toolCalls.push({ name: "bash", arguments: JSON.stringify({ command: rest }) });
				break;
			case "CALL":
			case "LOOP_CALL": {
				const [name, args] = firstWord(rest);
				(directive === "CALL" ? script.toolCalls : script.loopCalls).push({ name, arguments: args ?? "{}" });
				break;
			}
			case "BENCH": {
				const [count, chars] = firstWord(rest);
				script.bench = Math.floor(nonNegative(count));
				if (chars !== undefined) script.benchChars = Math.max(1, Math.floor(nonNegative(chars)));
				break;
			}
			case "PAUSE":
				script.pauseMs = nonNegative(rest);
				break;
			case "SLOW":
				script.slowMs = nonNegative(rest);
				break;
			case "HOLD":
				script.hold = rest;
				break;
			case "CHUNKS": {
				const [max, seed] = firstWord(rest);
				const size = Math.floor(nonNegative(max));
				if (size >= 1) script.chunks = { max: size, seed: seed === undefined ? undefined : Math.floor(nonNegative(seed)) };
				break;
			}
			case "ERROR": {
				const [status, message] = firstWord(rest);
				const code = Number(status);
				script.error = { status: Number.isInteger(code) && code >= 400 && code <= 599 ? code : 500, message: message ?? "fake error" };
				break;
			}
		}
	}
	return script;
}

// ---------------------------------------------------------------------------------------------------------------
// Replies: what to stream for a request, as a sequence of `choices[0].delta` objects

export type Delta = Record<string, unknown>;

export interface ChatMessage {
	role: string;
	content?: unknown;
}

/** The text of a message's content: a string, or an array of parts of which the text parts count. */
export function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (Array.isArray(content)) return content.map((part) => (typeof part?.text === "string" ? part.text : "")).join("");
	return "";
}

/**
 * The text that scripts the reply: the last user message, or, when it holds no directive, the nearest of the
 * user messages right before it that does. Hidden context a feature adds to a prompt (memory, todo plan, goal)
 * reaches the model as user messages after the prompt, so the prompt's directives stay in force; a prompt
 * whose reply was dropped (a failed or aborted run) also sits right before the next one, and must not script it.
 */
export function userTurnText(messages: ChatMessage[]): string {
	let index = messages.length - 1;
	while (index >= 0 && messages[index]!.role !== "user") index--;
	const last = index;
	for (; index >= 0 && messages[index]!.role === "user"; index--) {
		const text = textOf(messages[index]!.content);
		if (text.split(/\r?\n/).some((line) => directiveOf(line) !== undefined)) return text;
	}
	return last < 0 ? "" : textOf(messages[last]!.content);
}

/** Word-sized pieces that join back to `text` exactly. */
function words(text: string): string[] {
	return text.match(/\s*\S+\s*$|\s*\S+/g) ?? (text ? [text] : []);
}

/** `text` in the pieces CHUNKS asks for, else as `usual` cuts it. */
function piecesOf(text: string, script: Script, usual: (text: string) => string[]): string[] {
	if (!script.chunks) return usual(text);
	const { max, seed } = script.chunks;
	return seed === undefined ? fixedPieces(text, max) : new Prng(seed).pieces(text, max);
}

/** `text` in pieces of `size` characters (the last one shorter). */
function fixedPieces(text: string, size: number): string[] {
	const pieces: string[] = [];
	for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
	return pieces;
}

/** Up to four pieces of a tool call's argument text, so pi has to assemble partial JSON. */
function argumentPieces(args: string): string[] {
	return fixedPieces(args, Math.max(1, Math.ceil(args.length / 4)));
}

let callCounter = 0;
let responseCounter = 0;

function* toolCallDeltas(calls: ToolCallScript[], script: Script): Generator<Delta> {
	for (const [index, call] of calls.entries()) {
		const id = `call_fake_${++callCounter}`;
		yield { tool_calls: [{ index, id, type: "function", function: { name: call.name, arguments: "" } }] };
		for (const piece of piecesOf(call.arguments, script, argumentPieces)) yield { tool_calls: [{ index, function: { arguments: piece } }] };
	}
}

export function* replyDeltas(script: Script, messages: ChatMessage[], lastUserText: string): Generator<Delta> {
	if (script.loopCalls.length > 0) {
		yield* toolCallDeltas(script.loopCalls, script);
		return;
	}
	const last = messages[messages.length - 1];
	if (last?.role === "tool") {
		const reply = script.afterTool ?? `Tool result received: ${textOf(last.content).slice(0, 200).trimEnd()}`;
		for (const word of piecesOf(reply, script, words)) yield { content: word };
		return;
	}
	if (script.think) for (const word of piecesOf(script.think, script, words)) yield { reasoning_content: word };
	if (script.bench !== undefined) {
		const text = "x".repeat(script.benchChars);
		for (let i = 0; i < script.bench; i++) yield { content: text };
		return;
	}
	const reply = script.reply ?? (script.toolCalls.length ? undefined : `ok: ${lastUserText.slice(0, 80)}`);
	if (reply) for (const word of piecesOf(reply, script, words)) yield { content: word };
	yield* toolCallDeltas(script.toolCalls, script);
}

// ---------------------------------------------------------------------------------------------------------------
// Streaming

/** Writes SSE events, waiting for the socket to drain when it is full; stops quietly once the client is gone. */
export class SseWriter {
	private closed = false;
	private readonly onClose = new Set<() => void>();

	constructor(
		private readonly response: ServerResponse,
		private readonly record: RecordedRequest,
	) {
		response.on("close", () => {
			this.closed = true;
			if (!response.writableFinished) record.aborted = true;
			for (const wake of this.onClose) wake();
			this.onClose.clear();
		});
		response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
	}

	get gone(): boolean {
		return this.closed || this.response.destroyed;
	}

	async send(payload: unknown): Promise<void> {
		if (this.gone) return;
		this.record.firstChunkAt ??= now();
		if (!this.response.write(`data: ${JSON.stringify(payload)}\n\n`)) await this.waitFor("drain");
	}

	/** Waits until `released` settles, or less if the client leaves. */
	until(released: Promise<void>): Promise<void> {
		return Promise.race([released, this.waitFor(undefined)]);
	}

	/** Waits `ms` milliseconds, or less if the client leaves. */
	sleep(ms: number): Promise<void> {
		return ms > 0 ? this.waitFor(undefined, ms) : Promise.resolve();
	}

	end(): void {
		if (!this.gone) this.response.end("data: [DONE]\n\n");
	}

	private waitFor(event: "drain" | undefined, ms?: number): Promise<void> {
		if (this.gone) return Promise.resolve();
		return new Promise((resolve) => {
			const done = () => {
				clearTimeout(timer);
				if (event) this.response.off(event, done);
				this.onClose.delete(done);
				resolve();
			};
			const timer = ms === undefined ? undefined : setTimeout(done, ms);
			if (event) this.response.on(event, done);
			this.onClose.add(done);
		});
	}
}

export function approximateTokens(text: string): number {
	return Math.max(1, Math.ceil(text.length / 4));
}

/** The names HOLD waits on: released once for good, by the test. */
class Holds {
	private readonly released = new Set<string>();
	private readonly waiting = new Map<string, Array<() => void>>();

	wait(name: string): Promise<void> {
		if (this.released.has(name)) return Promise.resolve();
		return new Promise((resolve) => this.waiting.set(name, [...(this.waiting.get(name) ?? []), resolve]));
	}

	release(name: string): void {
		this.released.add(name);
		for (const wake of this.waiting.get(name) ?? []) wake();
		this.waiting.delete(name);
	}
}

async function reply(record: RecordedRequest, response: ServerResponse, holds: Holds): Promise<void> {
	const messages: ChatMessage[] = Array.isArray(record.body?.messages) ? record.body.messages : [];
	const lastUserText = userTurnText(messages);
	const script = parseScript(lastUserText);

	if (script.error) {
		const { status, message } = script.error;
		const type = status === 429 ? "rate_limit_error" : status >= 500 ? "server_error" : "invalid_request_error";
		response.writeHead(status, { "content-type": "application/json", "x-should-retry": "false" });
		response.end(JSON.stringify({ error: { message, type, param: null, code: String(status) } }));
		return;
	}

	const out = new SseWriter(response, record);
	const base = { id: `chatcmpl-fake-${++responseCounter}`, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: record.body?.model ?? FAKE_MODEL };
	const chunk = (delta: Delta, finishReason: string | null = null) => ({ ...base, choices: [{ index: 0, delta, finish_reason: finishReason }] });

	await out.send(chunk({ role: "assistant", content: "" }));
	let deltas = 0;
	let outputText = "";
	let toolUse = false;
	const pending = replyDeltas(script, messages, lastUserText);
	for (let next = pending.next(); !next.done; ) {
		const delta = next.value;
		next = pending.next();
		if (next.done && script.hold !== undefined) await out.until(holds.wait(script.hold));
		if (out.gone) break;
		await out.send(chunk(delta));
		deltas++;
		if (delta.tool_calls) toolUse = true;
		else outputText += String(delta.content ?? delta.reasoning_content ?? "");
		if (deltas === 1) await out.sleep(script.pauseMs);
		await out.sleep(script.slowMs);
	}
	await out.send(chunk({}, toolUse ? "tool_calls" : "stop"));
	if (record.body?.stream_options?.include_usage) {
		// An image counts as a few tokens, as a provider counts its tiles, not as its base64 (which would fill the
		// context with one photo and make pi compact after every message with images).
		const prompt_tokens = approximateTokens(JSON.stringify(messages, (key, value) => (key === "url" && String(value).startsWith("data:") ? "[image]" : value)));
		const completion_tokens = Math.max(deltas, approximateTokens(outputText));
		await out.send({ ...base, choices: [], usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens } });
	}
	out.end();
}

// ---------------------------------------------------------------------------------------------------------------
// Server

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
	response.writeHead(status, { "content-type": "application/json" });
	response.end(JSON.stringify(body));
}

export async function startFakeOpenAi(options: FakeOpenAiOptions = {}): Promise<FakeOpenAiServer> {
	const host = options.host ?? "127.0.0.1";
	const requests: RecordedRequest[] = [];
	const waiters: Array<(request: RecordedRequest) => void> = [];
	const holds = new Holds();

	const handleChat = (req: IncomingMessage, res: ServerResponse, rawBody: Buffer, answer: (record: RecordedRequest, response: ServerResponse) => Promise<void>) => {
		let body: unknown;
		try {
			body = JSON.parse(rawBody.toString("utf8"));
		} catch {
			return sendJson(res, 400, { error: { message: "request body is not JSON", type: "invalid_request_error", param: null, code: null } });
		}
		const record: RecordedRequest = { body, headers: req.headers, receivedAt: now() };
		requests.push(record);
		for (const wake of waiters.splice(0)) wake(record);
		void (async () => {
			try {
				await options.onRequest?.(record);
				await answer(record, res);
			} catch (error) {
				if (!res.headersSent) sendJson(res, 500, { error: { message: String(error), type: "server_error", param: null, code: null } });
				else res.destroy();
			} finally {
				record.lastByteAt = now();
			}
		})();
	};

	const server = createServer((req, res) => {
		req.on("error", () => {}); // a client that leaves mid-body is not our failure
		res.on("error", () => {});
		const path = (req.url ?? "/").split("?")[0]!;
		if (req.method === "GET" && path.endsWith("/models")) {
			const data = [FAKE_MODEL, FAKE_REASONER].map((id) => ({ id, object: "model", created: 0, owned_by: FAKE_PROVIDER }));
			return sendJson(res, 200, { object: "list", data });
		}
		// Chat Completions (pi), or the Responses API (codex, for the benchmark's peer side: fake-responses.ts).
		const answer = path.endsWith("/chat/completions") ? (record: RecordedRequest, response: ServerResponse) => reply(record, response, holds) : path.endsWith("/responses") ? replyResponses : undefined;
		if (req.method !== "POST" || !answer) {
			return sendJson(res, 404, { error: { message: `no route for ${req.method} ${path}`, type: "invalid_request_error", param: null, code: null } });
		}
		const chunks: Buffer[] = [];
		req.on("data", (chunk: Buffer) => chunks.push(chunk));
		req.on("end", () => handleChat(req, res, Buffer.concat(chunks), answer));
	});

	await new Promise<void>((resolve, reject) => {
		server.once("error", reject);
		server.listen(0, host, () => {
			server.off("error", reject);
			resolve();
		});
	});
	const port = (server.address() as { port: number }).port;
	return {
		url: `http://${host.includes(":") ? `[${host}]` : host}:${port}/v1`,
		port,
		requests,
		nextRequest: () => new Promise((resolve) => waiters.push(resolve)),
		release: (name) => holds.release(name),
		close: () =>
			new Promise((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}

// ---------------------------------------------------------------------------------------------------------------
// models.json

/**
 * Writes `<agentDir>/models.json` with provider "fake" (at `serverUrl`) and two models: "fake-model", and
 * "fake-reasoner" with `reasoning: true`. pi parses THINK deltas for both, but clamps the thinking level of a
 * model without `reasoning` to "off", so tests that set a thinking level (or the web client's thinking picker)
 * need "fake-reasoner". `compat.supportsReasoningEffort: false` keeps pi from sending `reasoning_effort`, and
 * `supportsDeveloperRole: false` keeps the system prompt under the "system" role for the reasoning model too.
 */
export function writeFakeModelsJson(agentDir: string, serverUrl: string): void {
	mkdirSync(agentDir, { recursive: true });
	const models = {
		providers: {
			[FAKE_PROVIDER]: {
				baseUrl: serverUrl,
				api: "openai-completions",
				apiKey: "fake-key",
				compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
				models: [
					{ id: FAKE_MODEL, input: ["text", "image"], contextWindow: 32000, maxTokens: 4096 },
					{ id: FAKE_REASONER, reasoning: true, contextWindow: 32000, maxTokens: 4096 },
				],
			},
		},
	};
	writeFileSync(join(agentDir, "models.json"), JSON.stringify(models, null, 2));
}
