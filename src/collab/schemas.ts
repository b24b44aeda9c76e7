/** What collaboration's commands say about a room, and the types the rooms answer with (one source for both). */
import { type Static, type TObject, Type } from "typebox";

export const RoomLinksFields = {
	roomId: Type.String(),
	sessionId: Type.String({ description: "The session the room shares." }),
	controlLink: Type.String({ description: "`<origin>/collab/ws/<roomId>#c=<key>`: its holder can watch, prompt, steer and abort." }),
	viewLink: Type.String({ description: "`<origin>/collab/ws/<roomId>#v=<key>`: its holder can only watch." }),
};

export const RoomSummaryFields = {
	roomId: Type.String(),
	sessionId: Type.String(),
	controlGuests: Type.Integer({ description: "Guests connected with the control link." }),
	viewGuests: Type.Integer({ description: "Guests connected with the view link." }),
	participantLimit: Type.Integer({ description: "Guests the room seats at once." }),
	startedAt: Type.String({ description: "ISO 8601." }),
};

/** What `collab_start` answers, and `collab_status` repeats so the host page can copy a link again. */
export type RoomLinks = Static<TObject<typeof RoomLinksFields>>;
/** What `collab_status` and `collab_updated` say about a room: never its keys. */
export type RoomSummary = Static<TObject<typeof RoomSummaryFields>>;
