/** The core agent commands, grouped by domain; the composition root registers them. */
export { exportCommands } from "./export.js";
export { imageCommands } from "./images.js";
export { maintenanceCommands } from "./maintenance.js";
export { modelCommands } from "./model.js";
export { runCommands } from "./run.js";
export { sessionCommands } from "./sessions.js";
export { settingsCommands } from "./settings.js";
export { shellCommands } from "./shell.js";
export { stateCommands } from "./state.js";
export { streamCommands } from "./stream.js";
export { treeCommands } from "./tree.js";
