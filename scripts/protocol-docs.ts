/** Regenerates the protocol contract's files (see contract-outputs.ts) from the registered schemas. */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { contractOutputs } from "./contract-outputs.js";

for (const { file, content } of contractOutputs()) {
	mkdirSync(dirname(fileURLToPath(file)), { recursive: true });
	writeFileSync(file, content);
	console.log(`${fileURLToPath(file)}: regenerated`);
}
