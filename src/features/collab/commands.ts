/** Control-plane commands of collaboration: start a room for a session, list rooms, stop one (docs/collab.md). */
import { Type } from "typebox";
import { defineCommand } from "../../protocol/command.js";
import { ROOM_ID_PATTERN } from "../../shared/collab-wire.js";
import type { CollabRoom, CollabRooms } from "../../collab/rooms.js";
import { RoomLinksFields, RoomSummaryFields } from "../../collab/schemas.js";
import type { ServiceKey } from "../../protocol/service-key.js";

/** Longest `baseUrl` accepted (an origin is far shorter). */
export const MAX_BASE_URL_CHARS = 2048;

const RoomIdSchema = Type.String({ pattern: ROOM_ID_PATTERN.source, description: "A room id (22 base64url characters)." });

const RoomStatusSchema = Type.Object({ ...RoomSummaryFields, ...RoomLinksFields }, { title: "CollabRoomStatus" });

/** The reason of every collab command where no listener runs (`--mode rpc`). */
export const NO_LISTENER = "Collaboration needs the listener: start skiff with --listen";

/** `rooms` answers `unavailable` with NO_LISTENER where no listener runs. */
export function collabCommands(rooms: ServiceKey<CollabRooms>) {
	const statusOf = (room: CollabRoom) => ({ ...room.summary(), ...room.links });
	return [
		defineCommand({
			name: "collab_start",
			summary:
				"Starts an encrypted collaboration room sharing the addressed session, and returns its two links: the control " +
				"link lets guests watch, prompt, steer and abort; the view link only watch. The links' origin is `baseUrl`, else " +
				"`--listen-advertised-origin`, else the listener's own address (a wildcard bind needs one of the two). Each call " +
				"starts a new room with new keys. Rooms live in memory only.",
			params: Type.Object(
				{
					baseUrl: Type.Optional(
						Type.String({ maxLength: MAX_BASE_URL_CHARS, description: "The origin guests reach the service at: `http(s)://host[:port]`, nothing else." }),
					),
				},
				{ additionalProperties: false },
			),
			result: Type.Object(RoomLinksFields, { title: "CollabRoomLinks" }),
			handler: async ({ baseUrl }, context) => {
				const collab = context.service(rooms);
				const session = await context.session();
				return collab.start(session.id, baseUrl);
			},
		}),
		defineCommand({
			name: "collab_status",
			summary: "The open collaboration rooms (or the one named), each with its links and how many guests of each role are connected.",
			params: Type.Object({ roomId: Type.Optional(RoomIdSchema) }, { additionalProperties: false }),
			result: Type.Object({
				rooms: Type.Array(RoomStatusSchema),
				roomLimit: Type.Integer({ description: "Rooms the service holds at once." }),
			}),
			handler: ({ roomId }, context) => {
				const collab = context.service(rooms);
				return { rooms: collab.list(roomId).map(statusOf), roomLimit: collab.maxRooms };
			},
		}),
		defineCommand({
			name: "collab_stop",
			summary: "Stops a collaboration room: its guests are disconnected (close 4001 \"collaboration room stopped\") and its links stop working.",
			params: Type.Object({ roomId: RoomIdSchema }, { additionalProperties: false }),
			result: Type.Object({
				roomId: Type.String(),
				sessionId: Type.String(),
				closedGuests: Type.Integer({ description: "Guest connections closed (joined or still joining)." }),
			}),
			handler: ({ roomId }, context) => {
				const { room, closedGuests } = context.service(rooms).stop(roomId);
				return { roomId: room.roomId, sessionId: room.sessionId, closedGuests };
			},
		}),
	];
}
