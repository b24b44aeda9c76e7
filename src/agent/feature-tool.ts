/**
 * A tool as features define it, without pi: a TypeBox schema for its arguments and a function that returns
 * text (or throws an error whose message the model sees). The agent adapter turns it into a pi tool.
 */
import type { Static, TObject } from "typebox";

export interface FeatureTool<S extends TObject = TObject> {
	readonly name: string;
	readonly label: string;
	readonly description: string;
	readonly parameters: S;
	execute(params: Static<S>, signal: AbortSignal | undefined): Promise<string>;
}

/** Identity helper that ties `execute`'s argument type to the schema. */
export function defineFeatureTool<S extends TObject>(tool: FeatureTool<S>): FeatureTool<S> {
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
