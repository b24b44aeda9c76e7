/**
 * How a command is defined: a name, a TypeBox schema for its fields (which validates input and documents
 * it), a short description of its result, and a handler. Domain modules define commands; the composition
 * root registers them.
 */
import { type Static, type TObject, Type } from "typebox";
import { Compile } from "typebox/compile";
import type { CommandContext } from "./context.js";

export interface CommandDefinition<S extends TObject = TObject> {
	/** The wire name (`type`), snake_case as in pi's protocol. */
	readonly name: string;
	/** One or two sentences for docs/protocol.md. */
	readonly summary: string;
	/** The fields beside `type`, `id` and `sessionId`. */
	readonly params: S;
	/** What `data` holds on success, for docs/protocol.md. */
	readonly result: string;
	/** Whether the command works over POST /rpc (commands about the event stream need /ws). */
	readonly rpc?: boolean;
	readonly handler: (params: Static<S>, context: CommandContext) => Promise<unknown> | unknown;
}

/** A registered command with its compiled validator. */
export interface RegisteredCommand {
	readonly definition: CommandDefinition;
	readonly check: (value: unknown) => boolean;
	readonly errors: (value: unknown) => Array<{ instancePath: string; message: string; params?: unknown }>;
}

/** The parameters of a command that takes no fields beside the envelope's. */
export const NoFields = Type.Object({}, { additionalProperties: false });

/** Identity helper that keeps the handler's parameter type tied to its schema. */
export function defineCommand<S extends TObject>(definition: CommandDefinition<S>): CommandDefinition<S> {
	return definition;
}

export class CommandRegistry {
	private readonly commands = new Map<string, RegisteredCommand>();

	register(...definitions: CommandDefinition<any>[]): this {
		for (const definition of definitions) {
			if (this.commands.has(definition.name)) throw new Error(`Command ${definition.name} is registered twice`);
			const compiled = Compile(definition.params);
			this.commands.set(definition.name, {
				definition,
				check: (value) => compiled.Check(value),
				errors: (value) => [...compiled.Errors(value)] as RegisteredCommand["errors"] extends (v: unknown) => infer R ? R : never,
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
