/** The event stream and the connection itself. */
import { Type } from "typebox";
import { CodedError } from "../../shared/errors.js";
import { defineCommand, NoFields, NoResult } from "../command.js";
import { PROTOCOL_VERSION } from "../version.js";

export const subscribe = defineCommand({
	name: "subscribe",
	summary:
		"Follows a session's events on this WebSocket. With `sinceSeq` and the `epoch` it came from (get_state), first " +
		"re-sends the events after that seq that the client missed, in order, before the response. `resync` is true " +
		"(nothing replayed: reload get_messages) when they are no longer kept, when `epoch` is missing or different (the " +
		"service restarted), or when `sinceSeq` is beyond the newest event (a seq from another numbering).",
	params: Type.Object(
		{
			sinceSeq: Type.Optional(Type.Integer({ minimum: 0, description: "The last seq the client has applied." })),
			epoch: Type.Optional(Type.String({ description: "The `epoch` of get_state when sinceSeq was seen; needed with sinceSeq." })),
		},
		{ additionalProperties: false },
	),
	result: Type.Object({
		sessionId: Type.String(),
		seq: Type.Integer({ description: "The newest seq when following began: the client now has every event up to it, later ones follow live." }),
		replayed: Type.Integer({ description: "How many missed events were re-sent before this response." }),
		resync: Type.Boolean({ description: "Missed events could not be replayed: reload with get_messages." }),
	}),
	rpc: false,
	handler: async ({ sinceSeq, epoch }, context) => {
		const session = await context.runtime.get(context.sessionId);
		return context.client.subscribe(session.id, sinceSeq, epoch);
	},
});

export const ping = defineCommand({
	name: "ping",
	summary: "Answers at once; for liveness checks.",
	params: NoFields,
	result: Type.Object({
		pong: Type.Literal(true),
		time: Type.Number({ description: "Server time, ms since 1970." }),
		protocolVersion: Type.Integer({ description: "The control protocol's version (see Versioning)." }),
	}),
	handler: () => ({ pong: true as const, time: Date.now(), protocolVersion: PROTOCOL_VERSION }),
});

export const extensionUiResponse = defineCommand({
	name: "extension_ui_response",
	summary: "Always rejected: remote answers to extension dialogs (approvals, confirmations) are disabled by design.",
	params: Type.Object({}, { additionalProperties: true }),
	result: NoResult,
	handler: () => {
		throw new CodedError("forbidden", "Remote interactive extension UI is disabled: extension_ui_response is not accepted");
	},
});

export const streamCommands = [subscribe, ping, extensionUiResponse];
