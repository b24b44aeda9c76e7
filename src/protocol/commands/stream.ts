/** The event stream and the connection itself. */
import { Type } from "typebox";
import { defineCommand, NoFields } from "../command.js";

export const subscribe = defineCommand({
	name: "subscribe",
	summary:
		"Follows a session's events on this WebSocket. With `sinceSeq` (and the `epoch` from get_state), first " +
		"re-sends the events after that seq that the client missed, in order; when they are no longer kept, or " +
		"the epoch changed (the service restarted), `resync` is true and the client reloads get_messages.",
	params: Type.Object(
		{
			sinceSeq: Type.Optional(Type.Integer({ minimum: 0, description: "The last seq the client has applied." })),
			epoch: Type.Optional(Type.String({ description: "The `epoch` of get_state when sinceSeq was seen." })),
		},
		{ additionalProperties: false },
	),
	result: "`{sessionId, seq, replayed, resync}` (the replayed events arrive before this response)",
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
	result: "`{pong: true, time}` (server time, ms since the epoch)",
	handler: () => ({ pong: true, time: Date.now() }),
});

export const extensionUiResponse = defineCommand({
	name: "extension_ui_response",
	summary: "Always rejected: remote answers to extension dialogs (approvals, confirmations) are disabled by design.",
	params: Type.Object({}, { additionalProperties: true }),
	result: "never succeeds",
	handler: () => {
		throw new Error("Remote interactive extension UI is disabled: extension_ui_response is not accepted");
	},
});

export const streamCommands = [subscribe, ping, extensionUiResponse];
