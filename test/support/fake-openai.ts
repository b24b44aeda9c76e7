/**
 * A fake OpenAI-compatible model server (Chat Completions with SSE streaming), on loopback only. The text of
 * the last user message scripts the reply, one directive per line:
 *
 *   REPLY <text>          stream <text> as word-sized text deltas
 *   REPLY_JSON <json>     the same, for a JSON string (so a reply can hold newlines and any character)
 *   THINK <text>          stream <text> as reasoning deltas first (`reasoning_content`, as llama.cpp does)
 *   RUN <command>         call the bash tool with {"command": <command>}
 *   CALL <tool> <json>    call any tool with these arguments
 *   BENCH <n>             stream n one-character text deltas, one SSE event each, as fast as the socket takes them
 *   PAUSE <ms>            wait this long after the first delta
 *   SLOW <ms>             wait this long between deltas
 *   ERROR <status> <msg>  answer with this HTTP status and an OpenAI-style error body
 *
 * Without directives the reply is `ok: <start of the message>`. After a tool call (the last message is a tool
 * result) the reply is `Tool result received: <start of the output>`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface RecordedRequest {
	body: any;
	/** When the request body was fully read (epoch ms, same clock as performance.timeOrigin + now()). */
	receivedAt: number;
	firstChunkAt?: number;
	lastByteAt?: number;
}

export interface FakeOpenAiServer {
	/** Base URL for models.json, e.g. http://127.0.0.1:PORT/v1 */
	url: string;
	port: number;
	requests: RecordedRequest[];
	/** Resolves with the next request to arrive. */
	nextRequest(): Promise<RecordedRequest>;
	close(): Promise<void>;
}

export const FAKE_PROVIDER = "fake";
export const FAKE_MODEL = "fake-model";

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Script {
	reply?: string;
	think?: string;
	toolCall?: { name: string; arguments: string };
	bench?: number;
	pauseMs: number;
	slowMs: number;
	error?: { status: number; message: string };
}

function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (Array.isArray(content)) return content.map((p) => (p && typeof p === "object" && "text" in p ? String(p.text) : "")).join("");
	return "";
}

function parseScript(text: string): Script {
	const script: Script = { pauseMs: 0, slowMs: 0 };
	for (const line of text.split("\n")) {
		const match = /^\s*(REPLY_JSON|REPLY|THINK|RUN|CALL|BENCH|PAUSE|SLOW|ERROR)\s+(.*)$/.exec(line);
		if (!match) continue;
		const [, directive, rest] = match as unknown as [string, string, string];
		switch (directive) {
			case "REPLY":
				script.reply = rest;
				break;
			case "REPLY_JSON":
				script.reply = JSON.parse(rest) as string;
				break;
			case "THINK":
				script.think = rest;
				break;
			case "RUN":
				script.toolCall = { name: "bash", arguments: JSON.stringify({ command: rest }) };
				break;
			case "CALL": {
				const space = rest.indexOf(" ");
				script.toolCall = { name: space < 0 ? rest : rest.slice(0, space), arguments: space < 0 ? "{}" : rest.slice(space + 1) };
				break;
			}
			case "BENCH":
				script.bench = Number(rest);
				break;
			case "PAUSE":
				script.pauseMs = Number(rest);
				break;
			case "SLOW":
				script.slowMs = Number(rest);
				break;
			case "ERROR": {
				const space = rest.indexOf(" ");
				script.error = { status: Number(space < 0 ? rest : rest.slice(0, space)), message: space < 0 ? "error" : rest.slice(space + 1) };
				break;
			}
		}
	}
	return script;
}

/** Writes SSE chunks, waiting for the socket to drain when it is full; stops quietly if the client left. */
class ChunkWriter {
	private closed = false;
	private sequence = 0;
	constructor(
		private readonly response: ServerResponse,
		private readonly record: RecordedRequest,
	) {
		response.on("close", () => (this.closed = true));
	}

	get gone(): boolean {
		return this.closed;
	}

	async chunk(delta: Record<string, unknown>, finishReason: string | null = null, usage?: Record<string, number>): Promise<void> {
		if (this.closed) return;
		const payload: Record<string, unknown> = {
			id: "chatcmpl-fake",
			object: "chat.completion.chunk",
			created: 0,
			model: FAKE_MODEL,
			choices: [{ index: 0, delta, finish_reason: finishReason }],
		};
		if (usage) payload.usage = usage;
		this.record.firstChunkAt ??= now();
		this.sequence++;
		if (!this.response.write(`data: ${JSON.stringify(payload)}\n\n`)) {
			await new Promise<void>((resolve) => {
				const done = () => {
					this.response.off("drain", done);
					this.response.off("close", done);
					resolve();
				};
				this.response.on("drain", done);
				this.response.on("close", done);
			});
		}
	}

	end(): void {
		if (!this.closed) this.response.end("data: [DONE]\n\n");
		this.record.lastByteAt = now();
	}
}

async function streamReply(request: RecordedRequest, response: ServerResponse): Promise<void> {
	const messages: Array<{ role: string; content: unknown }> = request.body?.messages ?? [];
	const last = messages[messages.length - 1];
	const lastUser = [...messages].reverse().find((m) => m.role === "user");
	const script = parseScript(textOf(lastUser?.content));
	if (script.error) {
		response.writeHead(script.error.status, { "content-type": "application/json" });
		response.end(JSON.stringify({ error: { message: script.error.message, type: "fake_error", code: script.error.status } }));
		return;
	}
	response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
	const out = new ChunkWriter(response, request);
	let first = true;
	const afterDelta = async () => {
		if (first && script.pauseMs) await sleep(script.pauseMs);
		first = false;
		if (script.slowMs) await sleep(script.slowMs);
	};
	await out.chunk({ role: "assistant", content: "" });

	if (last?.role === "tool") {
		const text = `Tool result received: ${textOf(last.content).slice(0, 200)}`;
		for (const word of words(text)) {
			await out.chunk({ content: word });
			await afterDelta();
		}
		await out.chunk({}, "stop", usage());
		return out.end();
	}
	if (script.think) {
		for (const word of words(script.think)) {
			await out.chunk({ reasoning_content: word });
			await afterDelta();
		}
	}
	if (script.bench !== undefined) {
		for (let i = 0; i < script.bench && !out.gone; i++) await out.chunk({ content: "x" });
		await out.chunk({}, "stop", usage());
		return out.end();
	}
	if (script.toolCall) {
		const id = `call_${Math.random().toString(36).slice(2, 10)}`;
		await out.chunk({ tool_calls: [{ index: 0, id, type: "function", function: { name: script.toolCall.name, arguments: "" } }] });
		const args = script.toolCall.arguments;
		const step = Math.max(1, Math.ceil(args.length / 4));
		for (let i = 0; i < args.length; i += step) {
			await out.chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(i, i + step) } }] });
		}
		await out.chunk({}, "tool_calls", usage());
		return out.end();
	}
	const text = script.reply ?? `ok: ${textOf(lastUser?.content).slice(0, 80)}`;
	for (const word of words(text)) {
		await out.chunk({ content: word });
		await afterDelta();
	}
	await out.chunk({}, "stop", usage());
	out.end();
}

function words(text: string): string[] {
	return text.match(/\s*\S+/g) ?? [text];
}

function usage(): Record<string, number> {
	return { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
}

export async function startFakeOpenAi(options: { host?: string } = {}): Promise<FakeOpenAiServer> {
	const requests: RecordedRequest[] = [];
	const waiters: Array<(r: RecordedRequest) => void> = [];
	const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
		if (req.method === "GET" && req.url?.endsWith("/models")) {
			res.writeHead(200, { "content-type": "application/json" });
			res.end(JSON.stringify({ object: "list", data: [{ id: FAKE_MODEL, object: "model", owned_by: "fake" }] }));
			return;
		}
		const chunks: Buffer[] = [];
		req.on("data", (c: Buffer) => chunks.push(c));
		req.on("end", () => {
			let body: unknown;
			try {
				body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
			} catch {
				res.writeHead(400).end("bad json");
				return;
			}
			const record: RecordedRequest = { body, receivedAt: now() };
			requests.push(record);
			waiters.splice(0).forEach((wake) => wake(record));
			streamReply(record, res).catch(() => res.destroy());
		});
	});
	await new Promise<void>((resolve) => server.listen(0, options.host ?? "127.0.0.1", resolve));
	const port = (server.address() as { port: number }).port;
	return {
		url: `http://127.0.0.1:${port}/v1`,
		port,
		requests,
		nextRequest: () => new Promise((resolve) => waiters.push(resolve)),
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

/** Writes `<agentDir>/models.json` with provider "fake": model "fake-model", and "fake-reasoner" (reasoning on). */
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
					{ id: FAKE_MODEL, contextWindow: 32000, maxTokens: 4096 },
					{ id: "fake-reasoner", reasoning: true, contextWindow: 32000, maxTokens: 4096 },
				],
			},
		},
	};
	writeFileSync(join(agentDir, "models.json"), JSON.stringify(models, null, 2));
}
