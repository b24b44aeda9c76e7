import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
	DEFAULT_MEMORY_SETTINGS,
	loadMemorySettings,
	MEMORY_SETTING_SCHEMAS,
	type MemorySettings,
	MemorySettingsSchema,
	parseMemorySettings,
	redactedSettings,
	requirement,
} from "../../../src/features/memory/settings.js";
import { tempDir } from "../../support/skiff-process.js";

test("a missing file or object means the local backend with every default of the spec", () => {
	const dir = tempDir();
	assert.deepEqual(loadMemorySettings(dir), DEFAULT_MEMORY_SETTINGS);
	writeFileSync(join(dir, "settings.json"), JSON.stringify({ other: true }));
	const settings = loadMemorySettings(dir);
	assert.equal(settings.backend, "local");
	assert.equal(settings.remoteBankId, "rpi");
	assert.equal(settings.remoteScoping, "per-project-tagged");
	assert.equal(settings.remoteRecallBudget, "mid");
	assert.equal(settings.remoteRecallMaxTokens, 1024);
	assert.deepEqual(settings.remoteRecallTypes, ["world", "experience"]);
	assert.deepEqual(
		[settings.remoteRequestTimeoutMs, settings.remoteRecallTimeoutMs, settings.remoteRetainTimeoutMs, settings.remoteReflectTimeoutMs],
		[30000, 30000, 60000, 120000],
	);
	assert.equal(settings.remoteAllowInsecure, false);
	assert.equal(settings.remoteInjection, false);
});

test("every key is validated and errors name it", () => {
	const cases: Array<[Record<string, unknown>, RegExp]> = [
		[{ backend: "cloud" }, /memory\.backend must be one of local, remote, off/],
		[{ backend: "remote" }, /memory\.remoteApiUrl is required/],
		[{ remoteApiUrl: "ftp://x" }, /memory\.remoteApiUrl must be an http or https URL/],
		[{ remoteApiUrl: "https://u:p@x" }, /memory\.remoteApiUrl must not contain credentials/],
		[{ remoteApiUrl: "not a url" }, /memory\.remoteApiUrl is not a valid URL/],
		[{ remoteAllowInsecure: "yes" }, /memory\.remoteAllowInsecure must be true or false/],
		[{ remoteBankId: "../x" }, /memory\.remoteBankId must use only/],
		[{ remoteBankIdPrefix: ".." }, /memory\.remoteBankIdPrefix/],
		[{ remoteScoping: "tribal" }, /memory\.remoteScoping must be one of global, per-project, per-project-tagged/],
		[{ remoteInjection: 1 }, /memory\.remoteInjection must be true or false/],
		[{ remoteRecallBudget: "max" }, /memory\.remoteRecallBudget must be one of low, mid, high/],
		[{ remoteRecallMaxTokens: 0 }, /memory\.remoteRecallMaxTokens must be an integer/],
		[{ remoteRecallTypes: [] }, /memory\.remoteRecallTypes must be a non-empty list/],
		[{ remoteRecallTypes: ["opinion"] }, /memory\.remoteRecallTypes/],
		[{ remoteRequestTimeoutMs: 0 }, /memory\.remoteRequestTimeoutMs must be an integer from 1/],
		[{ remoteReflectTimeoutMs: 1.5 }, /memory\.remoteReflectTimeoutMs/],
		[{ remoteBankMission: 3 }, /memory\.remoteBankMission must be a string/],
		[{ remoteBankId: "b".repeat(129) }, /memory\.remoteBankId must use only .*1 to 128 characters/],
		[{ remoteBankId: 7 }, /memory\.remoteBankId must be a string/],
		[{ remoteApiToken: 12345 }, /memory\.remoteApiToken must be a string$/],
		[{ backend: null }, /memory\.backend must be one of local, remote, off \(got null\)/],
	];
	for (const [raw, pattern] of cases) assert.throws(() => parseMemorySettings(raw, {}), pattern, JSON.stringify(raw));
	assert.throws(() => parseMemorySettings("local", {}), /memory must be an object/);
	const dir = tempDir();
	writeFileSync(join(dir, "settings.json"), "{ not json");
	assert.throws(() => loadMemorySettings(dir), /not valid JSON/);
});

test("keys that are no memory setting are left alone, each named in a warning; the others still count", () => {
	const warnings: string[] = [];
	const parsed = parseMemorySettings({ backend: "off", colour: "red", ["x".repeat(100)]: 1 }, {}, (line) => warnings.push(line));
	assert.equal(parsed.backend, "off");
	assert.equal("colour" in parsed, false);
	assert.equal(warnings.length, 2);
	assert.match(warnings[0]!, /^memory\.colour is not a memory setting; it is ignored/);
	assert.match(warnings[1]!, /^memory\."x{64}"… is not a memory setting/, "a long key is cut");
	const proto: string[] = [];
	assert.equal(parseMemorySettings(JSON.parse('{"__proto__": {"backend": "off"}}'), {}, (line) => proto.push(line)).backend, "local");
	assert.match(proto[0]!, /memory\.__proto__ is not a memory setting/);
	const dir = tempDir();
	writeFileSync(join(dir, "settings.json"), JSON.stringify({ memory: { bankId: "typo" } }));
	const fromFile: string[] = [];
	assert.deepEqual(loadMemorySettings(dir, {}, (line) => fromFile.push(line)), DEFAULT_MEMORY_SETTINGS);
	assert.match(fromFile[0]!, /memory\.bankId is not a memory setting/);
});

test("the token may be a $ENV reference; unset is an error; views always redact it", () => {
	const base = { backend: "remote", remoteApiUrl: "https://memory.example/" };
	const resolved = parseMemorySettings({ ...base, remoteApiToken: "$HS_TOKEN" }, { HS_TOKEN: "tok-abc-123" });
	assert.equal(resolved.remoteApiToken, "tok-abc-123");
	assert.equal(resolved.remoteApiUrl, "https://memory.example");
	assert.equal(parseMemorySettings({ ...base, remoteApiToken: "${HS_TOKEN}" }, { HS_TOKEN: "t2" }).remoteApiToken, "t2");
	assert.throws(() => parseMemorySettings({ ...base, remoteApiToken: "$MISSING_VAR" }, {}), /refers to \$MISSING_VAR, which is not set/);
	assert.equal(parseMemorySettings({ ...base, remoteApiToken: "literal-token" }, {}).remoteApiToken, "literal-token");
	const view = JSON.stringify(redactedSettings(resolved));
	assert.ok(!view.includes("tok-abc-123"));
	assert.match(view, /"remoteApiToken":"\[REDACTED\]"/);
});

test("blank or null text means unset, and repeated recall types collapse", () => {
	const settings = parseMemorySettings({ remoteBankId: "  ", remoteBankMission: null, remoteRetainMission: " keep facts ", remoteRecallTypes: ["world", "world"] }, {});
	assert.equal(settings.remoteBankId, "rpi");
	assert.equal(settings.remoteBankMission, undefined);
	assert.equal(settings.remoteRetainMission, "keep facts");
	assert.deepEqual(settings.remoteRecallTypes, ["world"]);
	assert.notEqual(parseMemorySettings({}, {}).remoteRecallTypes, parseMemorySettings({}, {}).remoteRecallTypes, "no shared default list");
});

test("the schema documents every key: a description, and what it allows in words", () => {
	for (const [key, schema] of Object.entries(MEMORY_SETTING_SCHEMAS)) {
		assert.ok(schema.description, `${key} has a description`);
		assert.doesNotMatch(requirement(schema), /undefined/, key);
		if (schema.default !== undefined) assert.deepEqual(schema.default, DEFAULT_MEMORY_SETTINGS[key as keyof MemorySettings], key);
	}
	assert.deepEqual(Object.keys(MEMORY_SETTING_SCHEMAS), Object.keys(MemorySettingsSchema.properties));
	assert.equal(requirement(MEMORY_SETTING_SCHEMAS.remoteScoping), "be one of global, per-project, per-project-tagged");
	assert.equal(requirement(MEMORY_SETTING_SCHEMAS.remoteRecallTimeoutMs), "be an integer from 1 to 600000");
	assert.equal(requirement(MEMORY_SETTING_SCHEMAS.remoteRecallTypes), "be a non-empty list of world, experience, observation");
	assert.equal(MEMORY_SETTING_SCHEMAS.remoteApiToken.writeOnly, true);
});
