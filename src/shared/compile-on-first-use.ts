/**
 * A TypeBox schema's compiled validator, made the first time it is needed. Compiling takes from a fraction of a
 * millisecond to several per schema; done for every command, setting and record schema as modules load, it was
 * a tenth of the service's start-up, while most of them are not checked until much later, if ever.
 */
import type { TSchema } from "typebox";
import { Compile } from "typebox/compile";

export type CompiledSchema<T extends TSchema> = ReturnType<typeof Compile<T>>;

/** Returns the schema's validator, compiling it on the first call only. */
export function compileOnFirstUse<T extends TSchema>(schema: T): () => CompiledSchema<T> {
	let compiled: CompiledSchema<T> | undefined;
	return () => (compiled ??= Compile(schema));
}
