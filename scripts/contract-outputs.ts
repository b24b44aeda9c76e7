/**
 * The generated files of the protocol contract, rendered from the registered schemas: the reference in
 * docs/protocol.md, docs/protocol.schema.json, the client's declarations, and the settings catalog in
 * docs/settings.md. `npm run docs:protocol` writes them; a test checks that the checked-in files match.
 */
import { readFileSync } from "node:fs";
import { createEventRegistry, createSchemaRegistry, createSettingsCatalog } from "../src/contract.js";
import { renderSettingsCatalog, spliceCatalog } from "../src/settings/catalog-doc.js";
import { contractSchema } from "../src/protocol/contract-schema.js";
import { contractTypes } from "../src/protocol/contract-types.js";
import { renderReference, spliceReference } from "../src/protocol/reference.js";
import { PROTOCOL_VERSION } from "../src/protocol/version.js";

export const PROTOCOL_DOC = new URL("../docs/protocol.md", import.meta.url);
export const PROTOCOL_SCHEMA = new URL("../docs/protocol.schema.json", import.meta.url);
export const CLIENT_TYPES = new URL("../src/client/protocol.generated.ts", import.meta.url);
export const SETTINGS_DOC = new URL("../docs/settings.md", import.meta.url);

/** Each generated file's expected content. */
export function contractOutputs(): Array<{ file: URL; content: string }> {
	const commands = createSchemaRegistry().list();
	const events = createEventRegistry().list();
	const document = readFileSync(PROTOCOL_DOC, "utf8");
	return [
		{ file: PROTOCOL_DOC, content: spliceReference(document, renderReference(commands, events)) },
		{ file: PROTOCOL_SCHEMA, content: `${JSON.stringify(contractSchema(commands, events, PROTOCOL_VERSION), null, "\t")}\n` },
		{ file: CLIENT_TYPES, content: contractTypes(commands, events, PROTOCOL_VERSION) },
		{ file: SETTINGS_DOC, content: spliceCatalog(readFileSync(SETTINGS_DOC, "utf8"), renderSettingsCatalog(createSettingsCatalog())) },
	];
}
