/**
 * Generated and mutated command inputs for the malformed-input fuzz: the command list and each command's
 * field schema come from the registry (the schemas that validate real input), so every command and every
 * field is covered. Each input is either a valid command or one deliberate mistake in it: a missing or extra
 * field, a wrong type, a boundary value, a broken envelope, a value that is not an object, or broken JSON.
 * A seeded generator makes a run repeatable.
 */
import { createSchemaRegistry } from "../src/contract.js";

/** A JSON schema as TypeBox emits it (the parts the generator reads). */
interface Schema {
	type?: string;
	const?: unknown;
	anyOf?: Schema[];
	properties?: Record<string, Schema>;
	required?: string[];
	items?: Schema;
	minLength?: number;
	maxLength?: number;
	minimum?: number;
	maxItems?: number;
	pattern?: string;
	additionalProperties?: boolean;
}

export interface CommandSpec {
	name: string;
	params: Schema;
	rpc: boolean;
}

/** Every registered command and its field schema. */
export function commandSpecs(): CommandSpec[] {
	const registry = createSchemaRegistry();
	return registry.list().map((d) => ({ name: d.name, params: d.params as unknown as Schema, rpc: d.rpc !== false }));
}

/** A small fast seeded generator (mulberry32). */
export class Random {
	constructor(private state: number) {}
	next(): number {
		this.state = (this.state + 0x6d2b79f5) | 0;
		let t = this.state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	}
	int(below: number): number {
		return Math.floor(this.next() * below);
	}
	pick<T>(items: readonly T[]): T {
		return items[this.int(items.length)]!;
	}
	chance(p: number): boolean {
		return this.next() < p;
	}
}

/** Strings a client might send by mistake or on purpose. No absolute paths: valid commands run for real. */
const ODD_STRINGS = [
	"",
	" ",
	"a",
	"\u0000",
	"\ud800",
	"\u202e\u0645\u0631\u062d\u0628\u0627",
	"🦀🚀",
	"null",
	"undefined",
	"NaN",
	"-1",
	"0",
	"9007199254740993",
	"{}",
	"[]",
	'{"type":"ping"}',
	"../",
	"..",
	"./nope",
	"no-such-session",
	"019ab",
	"__proto__",
	"constructor",
	"%s%s%s%n",
	"<script>alert(1)</script>",
	"\r\n\r\n",
	"\t",
	"fake/fake-model",
	"fake",
	"fake-model",
	"image/png",
	"local",
	"remote",
	"off",
	"high",
	"project",
	"all",
];

/** Values of every JSON type, including extremes. */
function oddValue(random: Random, depth = 0): unknown {
	switch (random.int(14)) {
		case 0:
			return null;
		case 1:
			return random.chance(0.5);
		case 2:
			return random.pick([0, -1, 1.5, -0, 1e308, -1e308, 2 ** 53 + 1, 4294967296, 1e-320]);
		case 3:
			return random.pick(ODD_STRINGS);
		case 4:
			return "x".repeat(random.pick([257, 1_000, 65_536, 100_000]));
		case 5:
			return [];
		case 6:
			return {};
		case 7:
			return depth < 3 ? [oddValue(random, depth + 1), oddValue(random, depth + 1)] : [];
		case 8:
			return depth < 3 ? { [random.pick(ODD_STRINGS)]: oddValue(random, depth + 1) } : {};
		case 9:
			return nested(random.pick([10, 100]), random.chance(0.5));
		case 10:
			return randomText(random, random.int(64));
		case 11:
			return { type: "image", data: "AAAA", mimeType: "image/png" };
		case 12:
			return Array.from({ length: 9 }, () => ({ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }));
		default:
			return random.int(1_000_000);
	}
}

/** `[[[…]]]` or `{"a":{"a":…}}` nested `depth` levels. */
function nested(depth: number, arrays: boolean): unknown {
	let value: unknown = 1;
	for (let i = 0; i < depth; i++) value = arrays ? [value] : { a: value };
	return value;
}

/** The JSON text of nested(depth, arrays), built as text: too deep for JSON.stringify's recursion. */
function nestedText(depth: number, arrays: boolean): string {
	return arrays ? `${"[".repeat(depth)}1${"]".repeat(depth)}` : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

/** Stands in a command object for a nested value that is spliced into its JSON text afterwards. */
const NESTED_MARK = "\u0001nested\u0001";

/** Printable and unprintable characters, surrogates included. */
function randomText(random: Random, length: number): string {
	let text = "";
	for (let i = 0; i < length; i++) {
		const kind = random.int(10);
		text += String.fromCharCode(kind < 6 ? 32 + random.int(95) : kind < 8 ? random.int(32) : kind < 9 ? 0xd800 + random.int(0x800) : 0x80 + random.int(0xff00));
	}
	return text;
}

/** A value the schema accepts. */
function validValue(schema: Schema, random: Random): unknown {
	if (schema.const !== undefined) return schema.const;
	if (schema.anyOf) return validValue(random.pick(schema.anyOf), random);
	switch (schema.type) {
		case "string": {
			if (schema.pattern) return random.pick(["iVBORw0KGgo=", "AAAA", "R0lGODlhAQABAAAAACw="]);
			const min = Math.max(1, schema.minLength ?? 0);
			const max = schema.maxLength ?? 80;
			const text = random.chance(0.5) ? random.pick(ODD_STRINGS) : `REPLY fuzz ${random.int(1000)}`;
			return text.length >= min && text.length <= max ? text : "x".repeat(min);
		}
		case "integer":
			return (schema.minimum ?? 0) + random.int(100);
		case "number":
			return random.next() * 100;
		case "boolean":
			return random.chance(0.5);
		case "array": {
			const count = random.int(Math.min(3, (schema.maxItems ?? 3) + 1));
			return Array.from({ length: count }, () => validValue(schema.items ?? {}, random));
		}
		case "object": {
			const value: Record<string, unknown> = {};
			const required = new Set(schema.required ?? []);
			for (const [key, child] of Object.entries(schema.properties ?? {})) {
				if (required.has(key) || random.chance(0.4)) value[key] = validValue(child, random);
			}
			return value;
		}
		default:
			return null;
	}
}

/** A value of a type other than the schema's. */
function wrongType(schema: Schema, random: Random): unknown {
	for (;;) {
		const value = oddValue(random);
		const type = Array.isArray(value) ? "array" : value === null ? "null" : typeof value;
		const expected = schema.type ?? (schema.anyOf ? "string" : "object");
		if (type !== expected && !(expected === "integer" && type === "number" && Number.isInteger(value))) return value;
	}
}

/** Keys no schema has. */
const EXTRA_KEYS = ["x", "__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "", " ", "Type", "ID", "k".repeat(5_000), "\u0000", "🦀"];

/** How an input was made: counted in the report. */
export type Mutation =
	| "valid"
	| "missing-field"
	| "wrong-type"
	| "extra-field"
	| "boundary-string"
	| "nested-field"
	| "bad-envelope"
	| "not-an-object"
	| "broken-json";

export interface FuzzInput {
	mutation: Mutation;
	command: string;
	/** The text to send (one frame, one /rpc body, or one line of a JSONL body). */
	text: string;
	/** The `id` the response must echo, when the input carries a usable one. */
	expectId?: string;
}

/** Most mutations have weight 2 (one mistake each); valid inputs are rarer: they run real commands. */
const WEIGHTS: Array<[Mutation, number]> = [
	["valid", 1],
	["missing-field", 2],
	["wrong-type", 3],
	["extra-field", 2],
	["boundary-string", 2],
	["nested-field", 1],
	["bad-envelope", 3],
	["not-an-object", 1],
	["broken-json", 3],
];
const WEIGHT_TOTAL = WEIGHTS.reduce((sum, [, w]) => sum + w, 0);

function pickMutation(random: Random): Mutation {
	let roll = random.int(WEIGHT_TOTAL);
	for (const [mutation, weight] of WEIGHTS) {
		if (roll < weight) return mutation;
		roll -= weight;
	}
	return "valid";
}

/**
 * Valid commands that leave something behind (a session file, a copy of one, a recorded message) run for
 * real; past this many of one kind, a valid input of that kind gets an unknown field instead, so the run's
 * cost stays flat (pi's session listing parses every file, and a clone copies the whole conversation).
 */
const LASTING_VALID_LIMIT = 40;
const LASTING = new Set(["new_session", "clone", "fork", "prompt", "steer", "follow_up", "compact", "set_session_name"]);

/** Makes fuzz inputs; `sessionIds` are real sessions a valid input may address. */
export class FuzzGenerator {
	private counter = 0;
	private readonly lastingValid = new Map<string, number>();

	constructor(
		private readonly random: Random,
		private readonly specs: CommandSpec[],
		private readonly sessionIds: () => string[],
	) {}

	/** The next input; `oneLine` keeps it free of line ends (for JSONL bodies). */
	next(oneLine = false): FuzzInput {
		const random = this.random;
		const spec = random.pick(this.specs);
		let mutation = pickMutation(random);
		if (mutation === "valid" && LASTING.has(spec.name)) {
			const used = this.lastingValid.get(spec.name) ?? 0;
			if (used >= LASTING_VALID_LIMIT) mutation = "extra-field";
			else this.lastingValid.set(spec.name, used + 1);
		}
		const id = `f${++this.counter}`;
		const params = validValue(spec.params, random) as Record<string, unknown>;
		const envelope: Record<string, unknown> = { type: spec.name, id };
		const sessions = this.sessionIds();
		if (sessions.length > 0 && random.chance(0.3)) envelope.sessionId = random.pick(sessions);
		const fields = Object.keys(spec.params.properties ?? {});
		let expectId: string | undefined = id;
		let nestedValue: string | undefined;
		let command: unknown = { ...envelope, ...params };

		switch (mutation) {
			case "valid":
				break;
			case "missing-field": {
				const required = spec.params.required ?? [];
				const drop = required.length > 0 ? random.pick(required) : "type";
				delete (command as Record<string, unknown>)[drop];
				break;
			}
			case "wrong-type": {
				const field = fields.length > 0 ? random.pick(fields) : undefined;
				if (field) (command as Record<string, unknown>)[field] = wrongType(spec.params.properties![field]!, random);
				else (command as Record<string, unknown>)[random.pick(EXTRA_KEYS)] = oddValue(random);
				break;
			}
			case "extra-field":
				(command as Record<string, unknown>)[random.pick(EXTRA_KEYS)] = oddValue(random);
				break;
			case "boundary-string": {
				const field = fields.find((f) => spec.params.properties![f]!.type === "string") ?? fields[0];
				const schema = field === undefined ? undefined : spec.params.properties![field]!;
				let value: string;
				if (LASTING.has(spec.name)) {
					// Just outside the schema's bounds: inside them it would be one more lasting command.
					if (schema?.maxLength !== undefined && random.chance(0.5)) value = "x".repeat(schema.maxLength + 1);
					else if ((schema?.minLength ?? 0) > 0) value = "";
					else {
						(command as Record<string, unknown>)[field ?? "message"] = 42; // an unbounded string: a number then
						break;
					}
				} else {
					// Rarely a value of megabytes (below the 4 MiB frame limit); mostly values at or near the bounds.
					const huge = random.chance(0.01) ? ["x".repeat(3_000_000)] : [];
					value = random.pick(["", "x".repeat(201), "x".repeat(4_097), randomText(random, 200), "\u0000", ...huge]);
				}
				(command as Record<string, unknown>)[field ?? "message"] = value;
				break;
			}
			case "nested-field": {
				const field = fields.length > 0 ? random.pick(fields) : "x";
				(command as Record<string, unknown>)[field] = NESTED_MARK;
				nestedValue = nestedText(random.chance(0.02) ? 100_000 : random.pick([100, 1_000, 10_000]), random.chance(0.5));
				break;
			}
			case "bad-envelope": {
				const target = command as Record<string, unknown>;
				switch (random.int(8)) {
					case 0:
						target.type = wrongType({ type: "string" }, random);
						break;
					case 1:
						target.type = random.chance(0.5) ? `no_such_${random.int(100)}` : "t".repeat(random.pick([65, 1_000, 100_000]));
						break;
					case 2:
						target.id = wrongType({ type: "string" }, random);
						expectId = undefined;
						break;
					case 3:
						target.id = "i".repeat(257);
						expectId = undefined;
						break;
					case 4:
						target.sessionId = wrongType({ type: "string" }, random);
						break;
					case 5:
						target.sessionId = random.chance(0.5) ? "s".repeat(257) : random.pick(ODD_STRINGS);
						break;
					case 6:
						delete target.type;
						break;
					default:
						// An empty id is a usable one: the command runs, so lasting ones get a wrong sessionId too.
						target.id = "";
						expectId = "";
						if (LASTING.has(spec.name)) target.sessionId = "no-such-session";
				}
				break;
			}
			case "not-an-object":
				command = random.pick<unknown>([[envelope], "ping", 42, null, true, [], [[]], spec.name]);
				expectId = undefined;
				break;
			case "broken-json":
				expectId = undefined;
				break;
		}

		let text = JSON.stringify(command);
		if (nestedValue !== undefined) text = text.replace(JSON.stringify(NESTED_MARK), nestedValue);
		if (mutation === "broken-json") text = this.breakJson(text);
		if (oneLine) text = text.replace(/[\r\n]/g, " ");
		if (expectId !== undefined && typeof (command as Record<string, unknown>).id !== "string") expectId = undefined;
		return { mutation, command: spec.name, text, expectId };
	}

	private breakJson(text: string): string {
		const random = this.random;
		switch (random.int(7)) {
			case 0:
				return text.slice(0, random.int(text.length)); // cut short
			case 1:
				return `${text}}`; // one brace too many
			case 2:
				return text.replace(/"/, ""); // an unquoted key
			case 3:
				return `${text.slice(0, -1)},}`; // trailing comma
			case 4:
				return text.replace(/:/, ": undefined,"); // not JSON values
			case 5:
				return `{"type":"ping","type":"${random.pick(ODD_STRINGS).replace(/["\\]/g, "")}"}`; // duplicate keys
			default:
				return random.pick(["", " ", "{", "}", "[", "\u0000", "NaN", "'ping'", "{type:ping}", "\ufeff{}"]);
		}
	}
}
