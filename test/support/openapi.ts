/**
 * Checks requests against an OpenAPI 3.1 document (Hindsight's own file): finds the operation by method and
 * path template, and validates the JSON body against its schema (types, required fields, enums, consts,
 * anyOf/oneOf/allOf, arrays, $ref). Errors come back in FastAPI's 422 shape.
 */
import { readFileSync } from "node:fs";

type Schema = Record<string, any>;

export interface ValidationError {
	type: string;
	loc: Array<string | number>;
	msg: string;
	input?: unknown;
}

export interface Operation {
	operationId: string;
	pathTemplate: string;
	params: Record<string, string>;
	bodySchema?: Schema;
	bodyRequired: boolean;
}

export class OpenApi {
	private readonly document: Schema;

	constructor(path: string) {
		this.document = JSON.parse(readFileSync(path, "utf8"));
	}

	/** The operation for a method and a concrete path, with its path parameters, or undefined. */
	find(method: string, path: string): Operation | undefined {
		for (const [template, item] of Object.entries(this.document.paths as Record<string, Schema>)) {
			const names: string[] = [];
			const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\\{([^}]+)\\\}|\{([^}]+)\}/g, (_m, a, b) => {
				names.push(a ?? b);
				return "([^/]+)";
			})}$`);
			const match = pattern.exec(path);
			const operation = item[method.toLowerCase()];
			if (!match || !operation) continue;
			const params = Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(match[i + 1]!)]));
			const body = operation.requestBody?.content?.["application/json"]?.schema;
			return { operationId: operation.operationId, pathTemplate: template, params, bodySchema: body, bodyRequired: Boolean(operation.requestBody?.required) };
		}
		return undefined;
	}

	/** Whether any operation exists at this path (for 405 versus 404). */
	hasPath(path: string): boolean {
		return ["get", "put", "post", "patch", "delete"].some((m) => this.find(m, path));
	}

	validate(schema: Schema, value: unknown, loc: Array<string | number> = ["body"]): ValidationError[] {
		const s = this.resolve(schema);
		if (s.anyOf || s.oneOf) {
			const options = (s.anyOf ?? s.oneOf) as Schema[];
			const results = options.map((o) => this.validate(o, value, loc));
			if (results.some((r) => r.length === 0)) return [];
			return results.sort((a, b) => a.length - b.length)[0] ?? [];
		}
		if (s.allOf) return (s.allOf as Schema[]).flatMap((o) => this.validate(o, value, loc));
		if ("const" in s && value !== s.const) return [{ type: "literal_error", loc, msg: `Input should be ${JSON.stringify(s.const)}`, input: value }];
		if (s.enum && !(s.enum as unknown[]).includes(value)) {
			return [{ type: "enum", loc, msg: `Input should be ${(s.enum as unknown[]).map((e) => JSON.stringify(e)).join(" or ")}`, input: value }];
		}
		const types = s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type];
		if (types.length && !types.some((t: string) => hasType(t, value))) {
			return [{ type: `${types[0]}_type`, loc, msg: `Input should be a valid ${types.join(" or ")}`, input: value }];
		}
		const errors: ValidationError[] = [];
		if (Array.isArray(value) && s.items) value.forEach((item, i) => errors.push(...this.validate(s.items, item, [...loc, i])));
		if (value && typeof value === "object" && !Array.isArray(value)) {
			const object = value as Record<string, unknown>;
			for (const name of (s.required as string[] | undefined) ?? []) {
				if (!(name in object)) errors.push({ type: "missing", loc: [...loc, name], msg: "Field required" });
			}
			for (const [name, child] of Object.entries(object)) {
				const property = (s.properties as Record<string, Schema> | undefined)?.[name];
				if (property) errors.push(...this.validate(property, child, [...loc, name]));
				else if (s.additionalProperties === false) errors.push({ type: "extra_forbidden", loc: [...loc, name], msg: "Extra inputs are not permitted" });
				else if (s.additionalProperties && typeof s.additionalProperties === "object") errors.push(...this.validate(s.additionalProperties, child, [...loc, name]));
			}
		}
		if (typeof value === "string" && typeof s.minLength === "number" && value.length < s.minLength) {
			errors.push({ type: "string_too_short", loc, msg: `String should have at least ${s.minLength} characters`, input: value });
		}
		if (typeof value === "number") {
			if (typeof s.minimum === "number" && value < s.minimum) errors.push({ type: "greater_than_equal", loc, msg: `Input should be >= ${s.minimum}`, input: value });
			if (typeof s.maximum === "number" && value > s.maximum) errors.push({ type: "less_than_equal", loc, msg: `Input should be <= ${s.maximum}`, input: value });
		}
		return errors;
	}

	private resolve(schema: Schema): Schema {
		let current = schema;
		while (current.$ref) {
			const path = (current.$ref as string).replace(/^#\//, "").split("/");
			current = path.reduce((node: Schema, key) => node[key], this.document);
		}
		return current;
	}
}

function hasType(type: string, value: unknown): boolean {
	switch (type) {
		case "null":
			return value === null;
		case "string":
			return typeof value === "string";
		case "boolean":
			return typeof value === "boolean";
		case "integer":
			return typeof value === "number" && Number.isInteger(value);
		case "number":
			return typeof value === "number";
		case "array":
			return Array.isArray(value);
		case "object":
			return typeof value === "object" && value !== null && !Array.isArray(value);
		default:
			return true;
	}
}
