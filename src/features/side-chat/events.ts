/**
 * The side chat's events, published on the main session's stream (so they are numbered, replayed and
 * followed with it): each tab's run as `side_chat_event`, wrapping the very events the main transcript gets,
 * shaped the same way (deltas only), and `side_chat_updated` when tabs open, close, start or stop running.
 */
import { type TObject, Type } from "typebox";
import { defineEvent } from "../../protocol/event.js";
import { coreEvents, RUN_EVENT_TYPES } from "../../protocol/events/core-events.js";
import { SideChatTabSchema } from "./schemas.js";

/** A core event's schema without the envelope (`sessionId`, `seq`): the wrapper carries those. */
function withoutEnvelope(type: string): TObject {
	const definition = coreEvents.find((e) => e.type === type);
	if (!definition) throw new Error(`No core event ${type}`);
	const { sessionId: _sessionId, seq: _seq, ...fields } = definition.schema.properties;
	return Type.Object(fields, { additionalProperties: true });
}

export const SideChatRunEventSchema = Type.Union(RUN_EVENT_TYPES.map(withoutEnvelope), {
	title: "SideChatRunEvent",
	description:
		"A tab's run event: the main transcript's event of the same `type`, without `sessionId` and `seq` (those are " +
		"the wrapping `side_chat_event`'s).",
});

export const sideChatEvent = defineEvent(
	"side_chat_event",
	"A side chat tab's run, as it streams: `event` is the event the main transcript would get (deltas only). Apply it " +
		"to the tab's transcript with the wrapper's `seq`.",
	{
		name: Type.String({ description: "The tab." }),
		event: SideChatRunEventSchema,
	},
);

export const sideChatUpdatedEvent = defineEvent(
	"side_chat_updated",
	"The session's side chat tabs changed: one opened or closed, or started or stopped running. `tabs` is the whole list.",
	{ tabs: Type.Array(SideChatTabSchema, { description: "Open tabs, oldest first (as side_chat_list)." }) },
);

export const sideChatEvents = [sideChatEvent, sideChatUpdatedEvent];
