/**
 * A tool as features define it, without pi: a TypeBox schema for its arguments and a function that returns
 * text, or text and images (or throws an error whose message the model sees). The agent adapter turns it into
 * a pi tool.
 */
import type { Static, TObject } from "typebox";

/** One part of a tool's result as the model reads it: text, or an image (base64 data). */
export type FeatureToolContent = { type: "text"; text: string } | { type: "image"; data: string; mimeType: string };

/**
 * A result richer than text: several parts, some of them images (an MCP tool's), and details that clients see
 * in the tool's card but the model does not (which MCP server answered).
 */
export interface FeatureToolOutput {
	content: FeatureToolContent[];
	details?: Record<string, unknown>;
}

/** `O`: what it answers with: text (most tools), or text and images (`string | FeatureToolOutput`). */
export interface FeatureTool<S extends TObject = TObject, O extends string | FeatureToolOutput = string> {
	readonly name: string;
	readonly label: string;
	readonly description: string;
	readonly parameters: S;
	execute(params: Static<S>, signal: AbortSignal | undefined): Promise<O>;
}

/** A tool that may answer with images too (an MCP server's). */
export type RichFeatureTool = FeatureTool<TObject, string | FeatureToolOutput>;

/**
 * Tools that come and go while a session is open (an MCP server's, known once it has started and changed when
 * it says its list changed). The adapter registers what `current` holds before each prompt; which of them are
 * offered is still the features' `activeToolNames`.
 */
export interface DynamicTools {
	current(): readonly RichFeatureTool[];
}

/** Identity helper that ties `execute`'s argument type to the schema. */
export function defineFeatureTool<S extends TObject, O extends string | FeatureToolOutput = string>(tool: FeatureTool<S, O>): FeatureTool<S, O> {
	return tool;
}

/** Output bound of memory tools and injected context. */
export const MAX_TOOL_OUTPUT_BYTES = 32 * 1024;

/** Cuts text to `maxBytes` on a character boundary, saying how much was left out. */
export function boundText(text: string, maxBytes = MAX_TOOL_OUTPUT_BYTES): string {
	const bytes = Buffer.from(text, "utf8");
	if (bytes.length <= maxBytes) return text;
	const marker = "\n[… output truncated]";
	let cut = maxBytes - Buffer.byteLength(marker);
	while (cut > 0 && (bytes[cut]! & 0xc0) === 0x80) cut--; // do not split a UTF-8 sequence
	return bytes.subarray(0, cut).toString("utf8") + marker;
}
