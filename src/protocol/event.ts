/**
 * How an event is defined: its `type`, a summary, and a TypeBox schema of its fields beside the envelope's
 * `type`, `sessionId` and `seq`. The schemas document every event (docs/protocol.md, protocol.schema.json),
 * type the client's event union, and are checked against real events in the tests. Core events are defined
 * in events/; features define theirs beside their commands and the composition root registers them.
 */
import { type TObject, type TProperties, Type } from "typebox";

export interface EventDefinition<F extends TProperties = TProperties> {
	/** The wire name (`type`). */
	readonly type: string;
	/** One or two sentences for docs/protocol.md. */
	readonly summary: string;
	/** The whole event: `type`, `sessionId`, `seq` and the event's own fields. */
	readonly schema: TObject<F & EnvelopeFields>;
}

type EnvelopeFields = {
	type: ReturnType<typeof Type.Literal>;
	sessionId: ReturnType<typeof Type.String>;
	seq: ReturnType<typeof Type.Integer>;
};

/** Defines an event from its own fields (the envelope's are added). Extra fields are allowed: events may grow. */
export function defineEvent<F extends TProperties>(type: string, summary: string, fields: F, title?: string): EventDefinition<F> {
	const schema = Type.Object(
		{
			type: Type.Literal(type),
			sessionId: Type.String({ description: "The session the event belongs to." }),
			seq: Type.Integer({ minimum: 1, description: "Increasing per session (see Catching up)." }),
			...fields,
		},
		{ additionalProperties: true, title: title ?? eventTitle(type) },
	);
	return { type, summary, schema: schema as unknown as EventDefinition<F>["schema"] };
}

/** `message_update` → `MessageUpdateEvent`. */
function eventTitle(type: string): string {
	return `${type.replace(/(^|_)([a-z])/g, (_m, _sep, letter: string) => letter.toUpperCase())}Event`;
}

export class EventRegistry {
	private readonly events = new Map<string, EventDefinition>();

	register(...definitions: EventDefinition<any>[]): this {
		for (const definition of definitions) {
			if (this.events.has(definition.type)) throw new Error(`Event ${definition.type} is registered twice`);
			this.events.set(definition.type, definition);
		}
		return this;
	}

	get(type: string): EventDefinition | undefined {
		return this.events.get(type);
	}

	/** All events, sorted by type. */
	list(): EventDefinition[] {
		return [...this.events.values()].sort((a, b) => a.type.localeCompare(b.type));
	}
}
