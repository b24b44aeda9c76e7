/**
 * `client.commands.<name>(params?, options?)`: one typed method per command of the generated `Commands` map,
 * made at run time by a Proxy, so a command added to the protocol is callable as soon as the declarations
 * are regenerated, with nothing written by hand.
 */
import type { CommandName, CommandParams, CommandResult } from "./protocol.generated.js";

/** Per-call options. */
export interface CallOptions {
	/** The session addressed; without it the connection's default session (the primary at first). */
	sessionId?: string;
	/** How long to wait for the answer before failing with `timeout` (default: the client's). */
	timeoutMs?: number;
}

/** A command's method: parameters are optional when the command takes none. */
export type CommandMethod<K extends CommandName> = {} extends CommandParams<K>
	? (params?: CommandParams<K>, options?: CallOptions) => Promise<CommandResult<K>>
	: (params: CommandParams<K>, options?: CallOptions) => Promise<CommandResult<K>>;

/** Every command as a method. */
export type CommandMethods = { readonly [K in CommandName]: CommandMethod<K> };

type Call = (type: CommandName, params: object, options?: CallOptions) => Promise<unknown>;

/**
 * The methods object. Only string names become commands; `then` is left out so the object is not mistaken
 * for a promise when returned from an async function.
 */
export function commandMethods(call: Call): CommandMethods {
	const made = new Map<string, (params?: object, options?: CallOptions) => Promise<unknown>>();
	return new Proxy({} as CommandMethods, {
		get(_target, name) {
			if (typeof name !== "string" || name === "then") return undefined;
			let method = made.get(name);
			if (!method) {
				method = (params = {}, options) => call(name as CommandName, params, options);
				made.set(name, method);
			}
			return method;
		},
	});
}
