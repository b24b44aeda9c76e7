/**
 * The fake model's OpenAI Responses API (`POST /v1/responses`, streamed as SSE), for the streaming benchmark's
 * codex side: `codex app-server` talks to a model provider only through this API (`wire_api = "responses"`).
 * It plays the same directives as the Chat Completions route (fake-openai.ts: REPLY, BENCH, PAUSE, SLOW, CHUNKS,
 * RUN/CALL/AFTER_TOOL, LOOP_CALL, ERROR, THINK): the script is read from the request's `input` items the same
 * way, and each Chat Completions delta becomes its Responses event:
 *
 *   text        `response.output_text.delta` in one `message` output item
 *   thinking    `response.reasoning_text.delta` in one `reasoning` output item, before the message
 *   tool calls  one `function_call` output item per call, its arguments as `response.function_call_arguments.delta`
 *
 * Every output item is announced (`response.output_item.added`) and closed with its whole content
 * (`response.output_item.done`), and the stream ends with `response.completed` (with usage), which codex waits
 * for: a stream that ends without it is an error to codex, which retries.
 */
import type { ServerResponse } from "node:http";
import {
	approximateTokens,
	type ChatMessage,
	type Delta,
	parseScript,
	type RecordedRequest,
	replyDeltas,
	SseWriter,
	sendJson,
	textOf,
	userTurnText,
} from "./fake-openai.js";

/** A Responses API input item, as far as the script needs it. */
interface InputItem {
	type?: string;
	role?: string;
	content?: unknown;
	output?: unknown;
}

/**
 * The request's input as chat messages, so the directives are found as for Chat Completions: messages keep their
 * role, and a tool's output (`function_call_output`) is a `tool` message, which selects the AFTER_TOOL reply.
 */
export function messagesOfInput(input: unknown): ChatMessage[] {
	if (typeof input === "string") return [{ role: "user", content: input }];
	if (!Array.isArray(input)) return [];
	const messages: ChatMessage[] = [];
	for (const item of input as InputItem[]) {
		if (item?.type === "function_call_output") messages.push({ role: "tool", content: typeof item.output === "string" ? item.output : textOf(item.output) });
		else if ((item?.type === "message" || item?.type === undefined) && typeof item?.role === "string") messages.push({ role: item.role, content: item.content });
	}
	return messages;
}

let responseCounter = 0;

/** One output item being streamed: its index in `output`, and its content so far (for its `done` event). */
interface OpenItem {
	index: number;
	item: Record<string, any>;
}

export async function replyResponses(record: RecordedRequest, response: ServerResponse): Promise<void> {
	const messages = messagesOfInput(record.body?.input);
	const lastUserText = userTurnText(messages);
	const script = parseScript(lastUserText);
	if (script.error) {
		const { status, message } = script.error;
		response.setHeader("x-should-retry", "false");
		return sendJson(response, status, { error: { message, type: status >= 500 ? "server_error" : "invalid_request_error", param: null, code: String(status) } });
	}

	const out = new SseWriter(response, record);
	const id = `resp_fake_${++responseCounter}`;
	const model = record.body?.model ?? "fake-model";
	const output: Record<string, any>[] = [];
	let sequence = 0;
	const send = (type: string, fields: Record<string, unknown>) => out.send({ type, sequence_number: sequence++, ...fields });

	let message: OpenItem | undefined;
	let reasoning: OpenItem | undefined;
	/** Function calls by their Chat Completions index. */
	const calls = new Map<number, OpenItem>();
	const open = async (item: Record<string, any>): Promise<OpenItem> => {
		const opened = { index: output.length, item };
		output.push(item);
		await send("response.output_item.added", { output_index: opened.index, item: { ...item } });
		return opened;
	};
	const close = (opened: OpenItem | undefined) => {
		if (!opened) return;
		if (opened.item.status) opened.item.status = "completed";
		return send("response.output_item.done", { output_index: opened.index, item: opened.item });
	};

	await send("response.created", { response: { id, object: "response", status: "in_progress", model, output: [] } });
	let deltas = 0;
	let outputText = "";
	for (const delta of replyDeltas(script, messages, lastUserText) as Generator<Delta>) {
		if (out.gone) break;
		if (typeof delta.reasoning_content === "string") {
			reasoning ??= await open({ type: "reasoning", id: `rs_${id}`, summary: [], content: [{ type: "reasoning_text", text: "" }] });
			reasoning.item.content[0].text += delta.reasoning_content;
			await send("response.reasoning_text.delta", { item_id: reasoning.item.id, output_index: reasoning.index, content_index: 0, delta: delta.reasoning_content });
			outputText += delta.reasoning_content;
		} else if (typeof delta.content === "string") {
			if (!message) {
				await close(reasoning);
				message = await open({ type: "message", id: `msg_${id}`, role: "assistant", status: "in_progress", content: [] });
				message.item.content.push({ type: "output_text", text: "", annotations: [] });
			}
			message.item.content[0].text += delta.content;
			await send("response.output_text.delta", { item_id: message.item.id, output_index: message.index, content_index: 0, delta: delta.content });
			outputText += delta.content;
		} else if (Array.isArray(delta.tool_calls)) {
			const [call] = delta.tool_calls as Array<{ index: number; id?: string; function: { name?: string; arguments: string } }>;
			let opened = calls.get(call!.index);
			if (!opened) {
				await close(calls.get(call!.index - 1) ?? message ?? reasoning);
				opened = await open({ type: "function_call", id: `fc_${call!.id}`, call_id: call!.id, name: call!.function.name, arguments: "", status: "in_progress" });
				calls.set(call!.index, opened);
			}
			if (call!.function.arguments) {
				opened.item.arguments += call!.function.arguments;
				await send("response.function_call_arguments.delta", { item_id: opened.item.id, output_index: opened.index, delta: call!.function.arguments });
			}
		}
		deltas++;
		if (deltas === 1) await out.sleep(script.pauseMs);
		await out.sleep(script.slowMs);
	}
	if (calls.size > 0) await close(calls.get(calls.size - 1));
	else await close(message ?? reasoning);
	const input_tokens = approximateTokens(JSON.stringify(record.body?.input ?? ""));
	const output_tokens = Math.max(deltas, approximateTokens(outputText));
	const usage = {
		input_tokens,
		input_tokens_details: { cached_tokens: 0 },
		output_tokens,
		output_tokens_details: { reasoning_tokens: 0 },
		total_tokens: input_tokens + output_tokens,
	};
	await send("response.completed", { response: { id, object: "response", status: "completed", model, output, usage } });
	out.end();
}
