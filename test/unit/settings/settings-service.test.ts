import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { RuntimeManager } from "../../../src/agent/runtime-manager.js";
import { createSettingsCatalog } from "../../../src/contract.js";
import { DRAFT_IDLE_MS, MAX_DRAFTS } from "../../../src/settings/drafts.js";
import { sessionSettingsConsumer } from "../../../src/settings/session-consumer.js";
import { SettingsService } from "../../../src/settings/settings-service.js";
import { MemoryService } from "../../../src/features/memory/memory-service.js";
import { memorySettingsConsumer, projectMemorySettings } from "../../../src/features/memory/settings-consumer.js";
import { DEFAULT_MEMORY_SETTINGS } from "../../../src/features/memory/settings.js";
import { FakeCatalog, fakeOpener } from "../../support/fake-agent.js";
import { tempDir } from "../../support/skiff-process.js";

/** A settings service over temporary files, with a runtime of fake sessions in `project` and memory wired as in core.ts. */
async function setup(global?: unknown, project?: unknown) {
	const agentDir = tempDir();
	const projectDir = tempDir("project-");
	const otherDir = tempDir("other-");
	const globalPath = join(agentDir, "settings.json");
	const projectPath = join(projectDir, ".skiff", "settings.json");
	if (global !== undefined) writeFileSync(globalPath, JSON.stringify(global));
	if (project !== undefined) {
		mkdirSync(join(projectDir, ".skiff"));
		writeFileSync(projectPath, JSON.stringify(project));
	}
	let clock = 1_000_000;
	const logs: string[] = [];
	const log = (line: string) => logs.push(line);
	const settings = new SettingsService({ agentDir, catalog: createSettingsCatalog(), log, now: () => clock });
	const memory = new MemoryService(agentDir, DEFAULT_MEMORY_SETTINGS, { projectSettings: (cwd) => projectMemorySettings(settings, cwd, log) });
	settings.addConsumer(sessionSettingsConsumer({ log }));
	settings.addConsumer(memorySettingsConsumer(memory));
	const catalog = new FakeCatalog();
	const { openSession, handles } = fakeOpener(catalog);
	const runtime = new RuntimeManager({
		cwd: projectDir,
		catalog,
		openSession: (source, options) => openSession(source, { ...options, settings: (cwd) => settings.sessionSettings(cwd) }),
		sessionFeatures: (origin) => {
			const features = memory.forSession(origin);
			return { features, attach: (id: string) => memory.attach(id, features) };
		},
	});
	const primary = await runtime.start({ kind: "new" });
	const other = await runtime.create({ cwd: otherDir });
	return {
		settings, memory, runtime, handles, primary, other, logs, agentDir, projectDir, otherDir, globalPath, projectPath,
		tick: (ms: number) => (clock += ms),
	};
}

const view = (inspection: { values: Array<{ key: string }> }, key: string) => inspection.values.find((v) => v.key === key) as any;

test("precedence: a trusted project's file over the global file over the default; an untrusted project counts for nothing", async () => {
	const s = await setup({ steeringMode: "all", followUpMode: "all" }, { followUpMode: "one-at-a-time", retry: { maxRetries: 9 } });
	let effective = s.settings.effective(s.projectDir);
	assert.equal(effective.trusted, false);
	assert.deepEqual(
		["steeringMode", "followUpMode", "retry.maxRetries", "retry.baseDelayMs"].map((k) => [effective.values.get(k)!.value, effective.values.get(k)!.source]),
		[["all", "global"], ["all", "global"], [3, "default"], [2000, "default"]],
	);
	s.settings.trust.setTrusted(effective.folder, true);
	effective = s.settings.effective(s.projectDir);
	assert.deepEqual(
		["steeringMode", "followUpMode", "retry.maxRetries"].map((k) => [effective.values.get(k)!.value, effective.values.get(k)!.source]),
		[["all", "global"], ["one-at-a-time", "project"], [9, "project"]],
	);
	assert.equal(s.settings.effective(s.otherDir).values.get("followUpMode")!.value, "all", "another folder is another project");
	assert.deepEqual(s.settings.sessionSettings(s.projectDir).retry, { enabled: true, maxRetries: 9, baseDelayMs: 2000 });
});

test("a value that does not fit is ignored and reported; a project file that does not parse is reported once and ignored", async () => {
	const s = await setup({ steeringMode: "sometimes" }, "not an object");
	writeFileSync(s.projectPath, "{ nope");
	s.settings.trust.setTrusted(s.settings.effective(s.projectDir).folder, true);
	const effective = s.settings.effective(s.projectDir);
	assert.equal(effective.values.get("steeringMode")!.source, "default");
	assert.match(effective.problems[0]!.message, /`steeringMode` must be one of all, one-at-a-time \(got "sometimes"\) in .*settings\.json/);
	assert.match(effective.projectError!, /is not valid JSON \(line 1, column 3\)/);
	s.settings.sessionSettings(s.projectDir);
	s.settings.sessionSettings(s.projectDir);
	assert.equal(s.logs.filter((l) => l.includes("is not valid JSON")).length, 1, "reported once");
	assert.throws(() => s.settings.checkGlobal(), /`steeringMode` must be one of/);
	assert.throws(() => s.settings.openDraft("project", s.projectDir), /not valid JSON/);
});

test("inspect: the effective value and its source per key, what each file holds, and a session's own switch as runtime", async () => {
	const s = await setup({ compaction: { enabled: false }, memory: { remoteApiToken: "sk-literal-secret-0123456789" } });
	s.handles[0]!.steeringMode = "all"; // the session switched it itself (set_steering_mode)
	const inspection = s.settings.inspect(s.primary);
	assert.deepEqual(
		[view(inspection, "compaction.enabled").effectiveValue, view(inspection, "compaction.enabled").source, view(inspection, "compaction.enabled").globalValue],
		[false, "global", false],
	);
	assert.deepEqual([view(inspection, "steeringMode").effectiveValue, view(inspection, "steeringMode").source], ["all", "runtime"]);
	assert.equal(view(inspection, "compaction.enabled").source, "global", "a switch equal to the files' value is not `runtime`");
	const token = view(inspection, "memory.remoteApiToken");
	assert.deepEqual([token.effectiveValue, token.globalValue, token.secret, token.allowed], ["[REDACTED]", "[REDACTED]", true, "a string"]);
	assert.ok(!JSON.stringify(inspection).includes("sk-literal"), "the secret is nowhere in the view");
	assert.equal(view(inspection, "memory.remoteApiUrl").effectiveValue, undefined, "unset: no value");
	assert.deepEqual([view(inspection, "memory.backend").editableProject, inspection.projectTrusted], [false, false]);
});

test("a draft: typed values, scope and secret rules, problems of the whole, then an atomic write that keeps unknown keys", async () => {
	const s = await setup({ theme: "dark", memory: { remoteApiToken: "sk-literal-secret-0123456789" } });
	const draft = s.settings.openDraft("global", s.projectDir);
	assert.deepEqual(draft.values, { "memory.remoteApiToken": "[REDACTED]" });
	assert.throws(() => s.settings.set(draft.draftId, "retry.baseDelayMs", 0), /`retry.baseDelayMs` must be an integer from 1 to 600000 \(got 0\)/);
	assert.throws(() => s.settings.set(draft.draftId, "nope.key", 1), /Unknown setting `nope.key`/);
	const literal = "sk-another-secret-abcdefghijkl";
	assert.throws(
		() => s.settings.set(draft.draftId, "memory.remoteApiToken", literal),
		(e: Error) => /is a secret.*environment variable/.test(e.message) && !e.message.includes(literal),
	);
	assert.throws(() => s.settings.set(draft.draftId, "memory.remoteApiToken", "$not a name"), /is a secret/);
	let view = s.settings.set(draft.draftId, "memory.remoteApiToken", "${SKIFF_TEST_TOKEN_SURELY_UNSET}");
	assert.match(view.problems.map((p) => p.message).join(), /refers to \$SKIFF_TEST_TOKEN_SURELY_UNSET, which is not set/);
	await assert.rejects(s.settings.apply(draft.draftId, s.runtime), /nothing was written: .*SKIFF_TEST_TOKEN_SURELY_UNSET/);
	s.settings.reset(draft.draftId, "memory.remoteApiToken");
	view = s.settings.set(draft.draftId, "memory.backend", "remote");
	assert.ok(view.problems.some((p) => p.key === "memory.remoteApiUrl" && /required when memory.backend is remote/.test(p.message)));
	await assert.rejects(s.settings.apply(draft.draftId, s.runtime), /nothing was written/);
	assert.equal(readFileSync(s.globalPath, "utf8"), JSON.stringify({ theme: "dark", memory: { remoteApiToken: "sk-literal-secret-0123456789" } }));

	s.settings.reset(draft.draftId, "memory.backend");
	s.settings.set(draft.draftId, "compaction.keepRecentTokens", 5000);
	s.settings.set(draft.draftId, "defaultThinkingLevel", "high");
	view = s.settings.validate(draft.draftId);
	assert.deepEqual([view.problems, view.changed.sort()], [[], ["compaction.keepRecentTokens", "defaultThinkingLevel", "memory.remoteApiToken"]]);
	const result = await s.settings.apply(draft.draftId, s.runtime);
	assert.deepEqual(result.keys.sort(), ["compaction.keepRecentTokens", "defaultThinkingLevel", "memory.remoteApiToken"]);
	assert.deepEqual([result.appliedLive.sort(), result.newSessions], [["compaction.keepRecentTokens", "memory.remoteApiToken"], ["defaultThinkingLevel"]]);
	assert.deepEqual(JSON.parse(readFileSync(s.globalPath, "utf8")), { theme: "dark", compaction: { keepRecentTokens: 5000 }, defaultThinkingLevel: "high" });
	for (const handle of s.handles) assert.deepEqual(handle.appliedSettings, [{ compaction: { keepRecentTokens: 5000 } }], "only the changed live key reaches each session");
	assert.throws(() => s.settings.validate(draft.draftId), /Unknown settings draft/);
});

test("a stale draft is refused and nothing is written; a draft with no change writes nothing", async () => {
	const s = await setup({ steeringMode: "all" });
	const draft = s.settings.openDraft("global", s.projectDir);
	s.settings.set(draft.draftId, "followUpMode", "all");
	writeFileSync(s.globalPath, JSON.stringify({ steeringMode: "one-at-a-time" }));
	await assert.rejects(s.settings.apply(draft.draftId, s.runtime), (e: Error & { code?: string }) => e.code === "conflict" && /changed since draft/.test(e.message));
	assert.equal(readFileSync(s.globalPath, "utf8"), JSON.stringify({ steeringMode: "one-at-a-time" }));
	assert.equal(s.handles[0]!.appliedSettings.length, 0);

	const idle = s.settings.openDraft("global", s.projectDir);
	s.settings.set(idle.draftId, "steeringMode", "one-at-a-time");
	const result = await s.settings.apply(idle.draftId, s.runtime);
	assert.deepEqual(result.keys, []);
	assert.equal(readFileSync(s.globalPath, "utf8"), JSON.stringify({ steeringMode: "one-at-a-time" }), "not even re-serialized");
});

test("a project draft needs trust, takes only project keys, and reaches only that project's sessions", async () => {
	const s = await setup({ followUpMode: "all" });
	assert.throws(() => s.settings.openDraft("project", s.projectDir), (e: Error & { code?: string }) => e.code === "forbidden" && /project_trust/.test(e.message));
	const trust = await s.settings.setTrust(s.projectDir, true, s.runtime);
	assert.deepEqual(trust.keys, [], "an empty project changes nothing");
	const draft = s.settings.openDraft("project", s.projectDir);
	assert.throws(() => s.settings.set(draft.draftId, "memory.remoteScoping", "global"), /can only be set in the global settings/);
	s.settings.set(draft.draftId, "steeringMode", "all");
	s.settings.set(draft.draftId, "memory.backend", "off");
	const result = await s.settings.apply(draft.draftId, s.runtime);
	assert.deepEqual([result.scope, result.path, result.keys.sort()], ["project", s.projectPath, ["memory.backend", "steeringMode"]]);
	assert.deepEqual(s.handles[0]!.appliedSettings, [{ steeringMode: "all" }]);
	assert.deepEqual(s.handles[1]!.appliedSettings, [], "a session elsewhere is not reached");
	assert.equal(s.memory.binding(s.primary.id).settings.backend, "off");
	assert.equal(s.memory.binding(s.other.id).settings.backend, "local");

	const revoked = s.settings.openDraft("project", s.projectDir);
	s.settings.set(revoked.draftId, "followUpMode", "one-at-a-time");
	await s.settings.setTrust(s.projectDir, false, s.runtime);
	await assert.rejects(s.settings.apply(revoked.draftId, s.runtime), (e: Error & { code?: string }) => e.code === "forbidden");
	assert.deepEqual(JSON.parse(readFileSync(s.projectPath, "utf8")), { steeringMode: "all", memory: { backend: "off" } });
	assert.deepEqual(s.handles[0]!.appliedSettings.at(-1), { steeringMode: "one-at-a-time" }, "untrusting takes the project's values away");
	assert.equal(s.memory.binding(s.primary.id).settings.backend, "local");
});

test("memory: a run-time switch survives an applied change of another key; an applied backend replaces it", async () => {
	const s = await setup(undefined);
	s.memory.setBackend(s.memory.binding(s.primary.id), "off"); // memory_set_backend
	let draft = s.settings.openDraft("global", s.projectDir);
	s.settings.set(draft.draftId, "memory.remoteBankId", "team");
	await s.settings.apply(draft.draftId, s.runtime);
	assert.deepEqual([s.memory.defaults.settings.backend, s.memory.defaults.settings.remoteBankId], ["off", "team"]);
	assert.equal(s.settings.inspect(s.primary).values.find((v) => v.key === "memory.backend")!.source, "runtime");
	draft = s.settings.openDraft("global", s.projectDir);
	s.settings.set(draft.draftId, "memory.remoteApiUrl", "https://memory.example/");
	s.settings.set(draft.draftId, "memory.backend", "remote");
	await s.settings.apply(draft.draftId, s.runtime);
	assert.deepEqual([s.memory.defaults.settings.backend, s.memory.defaults.settings.remoteApiUrl], ["remote", "https://memory.example"]);
	assert.equal(s.memory.binding(s.other.id).settings.backend, "remote", "every top-level session shares it");
	assert.equal(existsSync(join(s.agentDir, "trust.json")), false);
});

test("drafts are bounded: the least recently used goes beyond the count, and an unused one expires", async () => {
	const s = await setup(undefined);
	const first = s.settings.openDraft("global", s.projectDir);
	const second = s.settings.openDraft("global", s.projectDir);
	for (let i = 0; i < MAX_DRAFTS - 2; i++) s.settings.openDraft("global", s.projectDir);
	s.tick(1);
	s.settings.validate(first.draftId); // used: now the newest
	s.tick(1);
	s.settings.openDraft("global", s.projectDir);
	assert.throws(() => s.settings.validate(second.draftId), /Unknown settings draft/);
	s.settings.validate(first.draftId);
	s.tick(DRAFT_IDLE_MS + 1);
	assert.throws(() => s.settings.validate(first.draftId), /expired \(after 30 minutes unused/);
	s.settings.cancel(s.settings.openDraft("global", s.projectDir).draftId);
});
