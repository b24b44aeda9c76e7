/** A tool call's card in the transcript: its name, what it was called with, its state and its output (text and images). */
import { useRef } from "preact/hooks";
import { addedRows, type DiffRow, languageOf, parseDiff } from "../render/diff-rows";
import { redact } from "../render/redact";
import { terminalText } from "../render/terminal-text";
import { BASH_TAIL_LINES, GrowingText, settled, tail, TOOL_TAIL_LINES } from "../render/text-window";
import type { Message, ToolCallBlock } from "../../../src/client/index.js";
import { contentText, type LiveToolCall, type LiveToolOutput, mcpToolOf } from "../state/transcript";
import { ContentImages, type Load } from "./content-images";
import { DiffView } from "./diff-view";

/** A card's diff shows this many rows before it folds. */
const CARD_DIFF_ROWS = 30;

export function Output({ text, bash, isError }: { text: string; bash: boolean; isError?: boolean }) {
	const { shown, omitted } = tail(redact(terminalText(text)), bash ? BASH_TAIL_LINES : TOOL_TAIL_LINES);
	return (
		<div class={`output${isError ? " error" : ""}`}>
			{omitted > 0 && <div class="omitted">… {omitted} earlier line{omitted === 1 ? "" : "s"} omitted</div>}
			<pre>{shown}</pre>
		</div>
	);
}

/**
 * What a card says of a call's arguments, redacted: its command or path, else their JSON. While they stream,
 * what is safe so far of their JSON text, its escapes undone: inside JSON a pair's quotes are escaped
 * (`\"password\": \"…\"`), which redaction would not see as a pair.
 */
function argsSummary(block: LiveToolCall): string {
	const args = block.arguments as Record<string, unknown> | undefined;
	if (args && typeof args === "object") {
		if (typeof args.command === "string") return redact(args.command);
		if (typeof args.path === "string") return redact(args.path);
		const json = JSON.stringify(args);
		if (json !== "{}") return redact(json);
	}
	return settled(unescapeJson(block.argsText ?? ""));
}

/** JSON text with its string escapes undone, for reading (an escape cut off at the end stays as it is). */
function unescapeJson(text: string): string {
	return text.replace(/\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt]))/g, (_m, code: string | undefined, char: string | undefined) =>
		code ? String.fromCharCode(parseInt(code, 16)) : (JSON_ESCAPES[char!] ?? char!),
	);
}

const JSON_ESCAPES: Record<string, string> = { b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/** What may show of a text still streaming (settled, at the cost of what was added), else all of it, redacted. */
export function useShown(text: string, streaming: boolean): string {
	const growing = useRef<GrowingText | undefined>(undefined);
	return streaming ? (growing.current ??= new GrowingText()).update(text) : redact(text);
}

/** `load`: an image of the result the service left out (once the result's entry is known). */
export function ToolCard(props: { block: ToolCallBlock; result?: Extract<Message, { role: "toolResult" }>; live?: LiveToolOutput; load?: Load }) {
	const { block, result, live } = props;
	const bash = block.name === "bash";
	const running = !result && !live?.done;
	const text = useShown(result ? contentText(result.content) : (live?.text ?? ""), running);
	const isError = result ? result.isError : live?.isError;
	const state = running ? "running" : isError ? "failed" : "done";
	const mcp = mcpToolOf(block.name, result?.details);
	const change = result && !isError ? fileChange(block, result.details) : undefined;
	const omitted = (result?.details as { diffOmitted?: unknown } | undefined)?.diffOmitted;
	return (
		<div class={`tool ${bash ? "bash" : ""}`} data-state={state} id={`tool-${block.id}`} tabIndex={-1}>
			<div class="tool-head">
				{mcp && <span class="tag" title={`MCP server ${mcp[0]}`}>{mcp[0]}</span>}
				<span class="tool-name">{mcp ? mcp[1] : block.name || "tool"}</span>
				<code class="tool-args">{argsSummary(block)}</code>
				<span class={`tool-state ${state}`}>{state}</span>
			</div>
			{change ? (
				<>
					{change.note && <div class="omitted">{change.note}</div>}
					<DiffView rows={change.rows} lang={languageOf(String(block.arguments.path))} limit={CARD_DIFF_ROWS} />
				</>
			) : (
				(text || state !== "running") && <Output text={text} bash={bash} isError={isError} />
			)}
			{typeof omitted === "string" && <div class="omitted">No diff: {redact(omitted)}.</div>}
			{result && <ContentImages content={result.content} load={props.load} label="Images in the result" />}
		</div>
	);
}

/**
 * What an edit or write changed, from its result's details: pi's edit diff; the service's diff of a write
 * against what the file held (features/changes/write-diff.ts), or its content as a new file's lines.
 */
function fileChange(block: ToolCallBlock, details: unknown): { rows: DiffRow[]; note?: string } | undefined {
	const d = (details ?? {}) as { diff?: unknown; created?: unknown; diffTruncated?: unknown };
	if (block.name !== "edit" && block.name !== "write") return undefined;
	if (typeof d.diff === "string") {
		const rows = parseDiff(d.diff);
		return { rows, note: d.diffTruncated ? "The diff is cut short: the Changes panel has the whole file's." : rows.length ? undefined : "Unchanged: the file already held this." };
	}
	const content = block.arguments.content;
	if (d.created !== true || typeof content !== "string") return undefined;
	const rows = addedRows(content);
	return { rows, note: `New file, ${rows.length} line${rows.length === 1 ? "" : "s"}` };
}
