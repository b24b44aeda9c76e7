/** Side chats as a feature: tabs beside a session that talk about it without touching it (commands, events). */
import { serviceKey } from "../../protocol/service-key.js";
import { defineFeature } from "../module.js";
import { sideChatCommands } from "./commands.js";
import { sideChatEvents } from "./events.js";
import { SideChatService } from "./side-chat-service.js";

const key = serviceKey<SideChatService>("side chat");

export const sideChatFeature = defineFeature({
	key,
	events: sideChatEvents,
	commands: sideChatCommands(key),
	start: (host) => new SideChatService({ observe: (observer) => host.runtime.observe(observer), publish: (id, event, merge) => host.publish(id, event, merge) }),
});
