/**
 * Every feature of the service, one line each. The composition root starts them in the order of their `needs`
 * and the contract lists their settings, events and commands; neither names a feature. A session's tools and
 * hidden context come in this order too.
 */
import { changesFeature } from "./changes/index.js";
import { collabFeature } from "./collab/index.js";
import { filesFeature } from "./files/index.js";
import { goalFeature } from "./goal/index.js";
import { jobsFeature } from "./jobs/index.js";
import { mcpFeature } from "./mcp/index.js";
import { memoryFeature } from "./memory/index.js";
import type { FeatureModule } from "./module.js";
import { personasFeature } from "./personas/index.js";
import { settingsFeature } from "./settings/index.js";
import { sideChatFeature } from "./side-chat/index.js";
import { todoFeature } from "./todo/index.js";
import { workflowsFeature } from "./workflows/index.js";

export const FEATURES: readonly FeatureModule<any>[] = [
	memoryFeature,
	settingsFeature,
	goalFeature,
	todoFeature,
	sideChatFeature,
	jobsFeature,
	personasFeature,
	workflowsFeature,
	changesFeature,
	collabFeature,
	filesFeature,
	mcpFeature,
];
