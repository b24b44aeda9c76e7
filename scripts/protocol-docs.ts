/** Regenerates the command reference in docs/protocol.md from the registered schemas. */
import { readFileSync, writeFileSync } from "node:fs";
import { renderCommandReference, spliceReference } from "../src/protocol/reference.js";
import { createCommandRegistry } from "../src/command-registry.js";
import { MemoryService } from "../src/memory/memory-service.js";
import { DEFAULT_MEMORY_SETTINGS } from "../src/memory/settings.js";

const path = new URL("../docs/protocol.md", import.meta.url);
const document = readFileSync(path, "utf8");
writeFileSync(path, spliceReference(document, renderCommandReference(createCommandRegistry({ memory: new MemoryService("", DEFAULT_MEMORY_SETTINGS) }).list())));
console.log("docs/protocol.md: command reference regenerated");
