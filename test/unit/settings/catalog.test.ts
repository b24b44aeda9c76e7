import assert from "node:assert/strict";
import { test } from "node:test";
import { Type } from "typebox";
import { createSettingsCatalog, settingDefinitions } from "../../../src/contract.js";
import { SettingsCatalog } from "../../../src/settings/catalog.js";
import { CATALOG_END, CATALOG_START, renderSettingsCatalog, spliceCatalog } from "../../../src/settings/catalog-doc.js";
import { defineSetting, isSecret, schemaOf } from "../../../src/settings/definition.js";
import { MemorySettingsSchema } from "../../../src/features/memory/settings.js";

const catalog = createSettingsCatalog();

test("the catalog holds every key Skiff honours, each with a description, where it may be set and when it applies", () => {
	const keys = catalog.list().map((d) => d.key);
	for (const key of [
		"defaultProvider", "defaultModel", "defaultThinkingLevel", "steeringMode", "followUpMode",
		"compaction.enabled", "compaction.reserveTokens", "compaction.keepRecentTokens",
		"retry.enabled", "retry.maxRetries", "retry.baseDelayMs",
	]) {
		assert.ok(keys.includes(key), key);
	}
	for (const name of Object.keys(MemorySettingsSchema.properties)) assert.ok(keys.includes(`memory.${name}`), `memory.${name}`);
	for (const definition of catalog.list()) {
		assert.ok(schemaOf(definition).description, `${definition.key} has a description`);
		assert.ok(definition.scopes.includes("global"));
		assert.ok(["live", "newSessions", "restart"].includes(definition.applies));
	}
	assert.deepEqual(catalog.list().filter(isSecret).map((d) => d.key), ["memory.remoteApiToken"]);
	assert.deepEqual([catalog.defaultOf(catalog.get("compaction.reserveTokens")!), catalog.defaultOf(catalog.get("retry.maxRetries")!)], [16384, 3]);
	assert.deepEqual(catalog.defaultOf(catalog.get("steeringMode")!), "one-at-a-time", "pi's defaults: a missing file changes nothing");
});

test("memory keys are memory's own schemas, not copies", () => {
	assert.equal(catalog.get("memory.backend")!.schema, MemorySettingsSchema.properties.backend);
	assert.equal(catalog.get("memory.remoteRecallTypes")!.schema, MemorySettingsSchema.properties.remoteRecallTypes);
	assert.deepEqual(catalog.get("memory.backend")!.scopes, ["global", "project"]);
	assert.deepEqual(catalog.get("memory.remoteApiUrl")!.scopes, ["global"], "the server and its credentials are the user's");
});

test("a value that does not fit is described by key and what is allowed; a secret is never repeated", () => {
	const problem = (key: string, value: unknown) => catalog.problem(catalog.get(key)!, value);
	assert.equal(problem("steeringMode", "all"), undefined);
	assert.equal(problem("steeringMode", "sometimes"), '`steeringMode` must be one of all, one-at-a-time (got "sometimes")');
	assert.equal(problem("compaction.reserveTokens", 0), "`compaction.reserveTokens` must be an integer from 1 to 1000000 (got 0)");
	assert.equal(problem("compaction.reserveTokens", 1.5), "`compaction.reserveTokens` must be an integer from 1 to 1000000 (got 1.5)");
	assert.equal(problem("retry.enabled", "yes"), '`retry.enabled` must be true or false (got "yes")');
	assert.equal(problem("defaultModel", ""), '`defaultModel` must be a non-empty string (got "")');
	assert.equal(problem("memory.remoteRecallTypes", ["dreams"]), '`memory.remoteRecallTypes` must be a non-empty list of world, experience, observation (got ["dreams"])');
	assert.match(problem("memory.remoteBankId", "..")!, /use only letters, digits/);
	assert.equal(problem("memory.remoteApiToken", 12345), "`memory.remoteApiToken` must be a string");
	assert.match(problem("steeringMode", "x".repeat(500))!, /got "x+…\)$/, "a long value is cut");
});

test("the catalog refuses keys defined twice, keys that hold one another, and odd names", () => {
	const key = (name: string, scopes: Array<"global" | "project"> = ["global"]) =>
		defineSetting({ key: name, category: "test", schema: Type.Boolean({ description: "x" }), scopes, applies: "live" });
	assert.throws(() => new SettingsCatalog([key("a.b"), key("a.b")]), /defined twice/);
	assert.throws(() => new SettingsCatalog([key("a"), key("a.b")]), /overlap/);
	assert.throws(() => new SettingsCatalog([key("__proto__")]), /dotted path/);
	assert.throws(() => new SettingsCatalog([key("a", ["project"])]), /settable globally/);
});

test("docs/settings.md is rendered from the catalog: every key, its default, what it allows, scope and when it applies", () => {
	const rendered = renderSettingsCatalog(catalog);
	for (const definition of settingDefinitions()) assert.match(rendered, new RegExp(`\\| \`${definition.key.replace(/\./g, "\\.")}\` \\|`));
	assert.match(rendered, /\| `compaction\.reserveTokens` \| `16384` \| an integer from 1 to 1000000 \| global, project \| live \|/);
	assert.match(rendered, /\| `defaultThinkingLevel` \| `"medium"` \| one of off, minimal, low, medium, high, xhigh \| global, project \| new sessions \|/);
	assert.match(rendered, /\| `memory\.remoteApiToken` \| unset \| secret: a `\$VAR` reference/);
	const document = `# Intro\n\n${CATALOG_START}\nold\n${CATALOG_END}\n\nAfter.\n`;
	assert.equal(spliceCatalog(document, rendered), `# Intro\n\n${rendered}\n\nAfter.\n`);
	assert.throws(() => spliceCatalog("no markers", rendered), /lacks the catalog/);
});
