/**
 * Collaboration as a feature: the commands that open, list and stop encrypted rooms for a session, and the event
 * that tells the session's followers of its guests. The rooms are the listener's (src/collab/): in `--mode rpc`
 * there are none, and the commands say so.
 */
import { serviceKey } from "../../protocol/service-key.js";
import type { CollabRooms } from "../../collab/rooms.js";
import { defineFeature } from "../module.js";
import { collabCommands, NO_LISTENER } from "./commands.js";
import { collabEvents, collabUpdated } from "./events.js";

const key = serviceKey<CollabRooms>("collaboration", NO_LISTENER);

export const collabFeature = defineFeature({
	key,
	events: collabEvents,
	commands: collabCommands(key),
	start: (host) => {
		host.collab?.onChange((change) => host.publish(change.room.sessionId, collabUpdated(change)));
		return host.collab;
	},
});
