/**
 * Settings as a feature: the commands that inspect, draft, apply and trust, and the event that announces a
 * change. The settings themselves (catalog, files, trust, effective values) are the service's, in src/settings/.
 */
import { serviceKey } from "../../protocol/service-key.js";
import type { SettingsService } from "../../settings/settings-service.js";
import { defineFeature } from "../module.js";
import { settingsFeatureCommands } from "./commands.js";
import { settingsEvents } from "./events.js";

const key = serviceKey<SettingsService>("settings");

export const settingsFeature = defineFeature({
	key,
	events: settingsEvents,
	commands: settingsFeatureCommands(key),
	start: (host) => host.settings,
});
