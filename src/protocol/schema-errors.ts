/**
 * Turns TypeBox validation errors into one sentence a person can act on: unknown and missing fields by
 * name, allowed values listed (an enum, or a union of constants), and the offending value shown briefly.
 */
import { echo } from "./echo.js";

/** A validation error as TypeBox reports it. */
export interface SchemaError {
	keyword?: string;
	instancePath: string;
	message: string;
	params?: unknown;
}

/** Most problems named in one message. */
const MAX_PROBLEMS = 3;

/** The first few problems of `value` as `field: problem`, joined by "; ". */
export function describeSchemaErrors(errors: SchemaError[], value: unknown): string {
	const parts: string[] = [];
	const constants = new Map<string, unknown[]>(); // allowed values of union-of-constant fields, by path
	for (const error of errors) {
		if (error.keyword === "const") {
			const list = constants.get(error.instancePath) ?? [];
			list.push((error.params as { allowedValue?: unknown } | undefined)?.allowedValue);
			constants.set(error.instancePath, list);
		}
	}
	for (const error of errors) {
		const params = (error.params ?? {}) as { additionalProperties?: string[]; requiredProperties?: string[]; allowedValues?: unknown[] };
		const field = fieldName(error.instancePath);
		if (params.additionalProperties) {
			parts.push(`unknown field${params.additionalProperties.length > 1 ? "s" : ""} ${params.additionalProperties.map((f) => `\`${echo(f)}\``).join(", ")}`);
		} else if (params.requiredProperties) {
			parts.push(`missing field${params.requiredProperties.length > 1 ? "s" : ""} ${params.requiredProperties.map((f) => `\`${f}\``).join(", ")}`);
		} else if (error.message === "schema is false") {
			continue; // the additionalProperties error already names the field
		} else if (error.keyword === "enum" && params.allowedValues) {
			parts.push(`${subject(field)} must be one of ${params.allowedValues.map(String).join(", ")} (got ${valueEcho(at(value, error.instancePath))})`);
		} else if (error.keyword === "const" || (error.keyword === "anyOf" && constants.has(error.instancePath))) {
			const allowed = constants.get(error.instancePath)!;
			const text = allowed.length === 1 ? `must be ${String(allowed[0])}` : `must be one of ${allowed.map(String).join(", ")}`;
			parts.push(`${subject(field)} ${text} (got ${valueEcho(at(value, error.instancePath))})`);
		} else {
			parts.push(field ? `\`${echo(field)}\` ${error.message}` : error.message);
		}
	}
	return [...new Set(parts)].slice(0, MAX_PROBLEMS).join("; ") || "fields do not match the schema";
}

function fieldName(instancePath: string): string {
	return instancePath.replace(/^\//, "").replace(/\//g, ".");
}

function subject(field: string): string {
	return field ? `\`${echo(field)}\`` : "the value";
}

/** The value at a JSON pointer (`/a/0/b`) inside `value`. */
function at(value: unknown, pointer: string): unknown {
	let current = value;
	for (const part of pointer.split("/").slice(1)) {
		if (typeof current !== "object" || current === null) return undefined;
		current = (current as Record<string, unknown>)[part.replace(/~1/g, "/").replace(/~0/g, "~")];
	}
	return current;
}

/** Nesting levels and items per level an echoed value shows; the rest is "…". */
const PREVIEW_DEPTH = 3;
const PREVIEW_ITEMS = 4;

/**
 * The offending value, briefly. Never the whole value: a client may send one nested thousands of levels deep
 * (JSON.stringify would overflow the stack) or megabytes wide, so only its first levels and items are drawn.
 */
function valueEcho(value: unknown): string {
	return echo(value === undefined ? "nothing" : preview(value, 0));
}

function preview(value: unknown, depth: number): string {
	if (typeof value !== "object" || value === null) return JSON.stringify(value) ?? String(value);
	if (Array.isArray(value)) {
		if (depth >= PREVIEW_DEPTH) return value.length ? "[…]" : "[]";
		const items = value.slice(0, PREVIEW_ITEMS).map((item) => preview(item, depth + 1));
		return `[${items.join(",")}${value.length > PREVIEW_ITEMS ? ",…" : ""}]`;
	}
	const keys = Object.keys(value);
	if (depth >= PREVIEW_DEPTH) return keys.length ? "{…}" : "{}";
	const fields = keys.slice(0, PREVIEW_ITEMS).map((key) => `${JSON.stringify(echo(key))}:${preview((value as Record<string, unknown>)[key], depth + 1)}`);
	return `{${fields.join(",")}${keys.length > PREVIEW_ITEMS ? ",…" : ""}}`;
}
