/** The session goal as a feature: its commands and events, and a goal in every top-level session (tool, context). */
import { serviceKey } from "../../protocol/service-key.js";
import { defineFeature } from "../module.js";
import { goalCommands } from "./commands.js";
import { goalEvents } from "./events.js";
import { GoalService } from "./service.js";

const key = serviceKey<GoalService>("goal");

export const goalFeature = defineFeature({
	key,
	events: goalEvents,
	commands: goalCommands(key),
	start: () => new GoalService(),
	// A goal is the user's: a job's child works on its task, not toward a goal of its own.
	sessions: {
		serves: ["top-level"],
		contribute: (goals) => goals.contribution(),
	},
});
