/**
 * The project's files as a feature: `files_list` and `files_read` browse and preview the addressed session's
 * working directory, read-only and confined to it (confine.ts). It keeps no state and gives sessions nothing:
 * its commands work on the session's folder as it is now.
 */
import { serviceKey } from "../../protocol/service-key.js";
import { defineFeature } from "../module.js";
import { filesCommands } from "./commands.js";

const key = serviceKey<true>("files");

export const filesFeature = defineFeature({
	key,
	commands: filesCommands,
	start: () => true,
});

export { type FileEntry, type FilesListResult, type FilesReadResult } from "./schemas.js";
