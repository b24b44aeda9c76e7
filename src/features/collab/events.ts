/** The collaboration event: the host's followers of a shared session learn when its rooms and guests change. */
import { type Static, Type } from "typebox";
import { defineEvent } from "../../protocol/event.js";
import type { RoomChange } from "../../collab/rooms.js";

export const collabUpdatedEvent = defineEvent(
	"collab_updated",
	"A collaboration room of this session started, a guest joined or left, or the room stopped. Guests never receive it.",
	{
		roomId: Type.String(),
		stopped: Type.Boolean({ description: "The room was stopped: its links no longer work." }),
		controlGuests: Type.Integer({ description: "Guests connected with the control link now." }),
		viewGuests: Type.Integer({ description: "Guests connected with the view link now." }),
	},
);

export type CollabUpdatedEvent = Omit<Static<typeof collabUpdatedEvent.schema>, "type" | "sessionId" | "seq"> & { type: "collab_updated" };

/** The event for a room change, published on the room's session. */
export function collabUpdated({ room, stopped }: RoomChange): CollabUpdatedEvent {
	return { type: "collab_updated", roomId: room.roomId, stopped, controlGuests: room.controlGuests, viewGuests: room.viewGuests };
}

export const collabEvents = [collabUpdatedEvent];
