/**
 * Whether pi can take an MCP tool's input schema: it must be a JSON Schema object of type `object` (the model's
 * arguments are one object) that TypeBox compiles, as pi validates every call's arguments with it. A schema
 * that fails is refused with the reason, and the tool is left out, not the server.
 */
import type { TObject } from "typebox";
import { Compile } from "typebox/compile";

/** Largest schema taken (its JSON text): one tool's schema is sent to the model with every request. */
export const MAX_SCHEMA_BYTES = 64 * 1024;

/** The schema as pi's parameters, or why it cannot be. */
export function toolParameters(schema: unknown): { parameters: TObject } | { problem: string } {
	if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return { problem: "its input schema is not an object" };
	const record = schema as Record<string, unknown>;
	if (record.type !== "object") return { problem: `its input schema has type ${JSON.stringify(record.type)}, not "object"` };
	let text: string;
	try {
		text = JSON.stringify(schema);
	} catch {
		return { problem: "its input schema cannot be written as JSON" };
	}
	if (text.length > MAX_SCHEMA_BYTES) return { problem: `its input schema is ${text.length} bytes, over ${MAX_SCHEMA_BYTES}` };
	const copy = JSON.parse(text) as Record<string, unknown>;
	try {
		Compile(copy as never);
	} catch (error) {
		return { problem: `its input schema cannot be compiled: ${(error as Error).message.slice(0, 200)}` };
	}
	return { parameters: copy as unknown as TObject };
}
