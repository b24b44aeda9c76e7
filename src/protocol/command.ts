/**
 * How a command is defined: a name, a TypeBox schema for its fields (which validates input, documents it
 * and types the handler), a schema of its result (which documents it, types the handler's return value and
 * the typed client, and is checked against real responses in the tests), and a handler. Domain modules
 * define commands; the composition root registers them.
 */
import { IsSchema, type Static, type TObject, type TSchema, Type } from "typebox";
import { compileOnFirstUse } from "../shared/compile-on-first-use.js";
import type { CommandContext } from "./context.js";
import type { SchemaError } from "./schema-errors.js";

/** The result schema of a command whose response carries no `data`. */
export const NoResult = Type.Undefined({ description: "none: the response has no `data`" });
export type NoResultSchema = typeof NoResult;

/** What a handler returns for a result schema: nothing for NoResult, else the schema's type. */
export type ResultOf<R extends TSchema> = R extends NoResultSchema ? void : Static<R>;

export interface CommandDefinition<S extends TObject = TObject, R extends TSchema = TSchema> {
	/** The wire name (`type`), snake_case as in pi's protocol. */
	readonly name: string;
	/** One or two sentences for docs/protocol.md. */
	readonly summary: string;
	/** The fields beside `type`, `id` and `sessionId`. */
	readonly params: S;
	/** What `data` holds on success (NoResult: no `data`). */
	readonly result: R;
	/** Whether the command works over POST /rpc (commands about the event stream need /ws). */
	readonly rpc?: boolean;
	readonly handler: (params: Static<S>, context: CommandContext) => Promise<ResultOf<R>> | ResultOf<R>;
}

/** A registered command with its compiled validator. */
export interface RegisteredCommand {
	readonly definition: CommandDefinition;
	readonly check: (value: unknown) => boolean;
	readonly errors: (value: unknown) => SchemaError[];
}

/** The parameters of a command that takes no fields beside the envelope's. */
export const NoFields = Type.Object({}, { additionalProperties: false });

/** Identity helper that ties the handler's parameter and return types to the schemas. */
export function defineCommand<S extends TObject, R extends TSchema>(definition: CommandDefinition<S, R>): CommandDefinition<S, R> {
	return definition;
}

export class CommandRegistry {
	private readonly commands = new Map<string, RegisteredCommand>();

	register(...definitions: CommandDefinition<any, any>[]): this {
		for (const definition of definitions) {
			if (this.commands.has(definition.name)) throw new Error(`Command ${definition.name} is registered twice`);
			if (!IsSchema(definition.result)) throw new Error(`Command ${definition.name} has no result schema`);
			const validator = compileOnFirstUse(definition.params);
			this.commands.set(definition.name, {
				definition,
				check: (value) => validator().Check(value),
				errors: (value) => [...validator().Errors(value)] as SchemaError[],
			});
		}
		return this;
	}

	get(name: string): RegisteredCommand | undefined {
		return this.commands.get(name);
	}

	/** All commands, sorted by name. */
	list(): CommandDefinition[] {
		return [...this.commands.values()].map((c) => c.definition).sort((a, b) => a.name.localeCompare(b.name));
	}
}
