/**
 * Settings through the real service: what settings.json says reaches the sessions, the commands edit the files
 * through drafts, applied changes take effect live, a project counts only once trusted, and every bad input is
 * a clear error that leaves the files as they were.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { runSkiffInOrder, type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { TestClient } from "../support/ws-client.js";

let model: FakeOpenAiServer;
const running: SkiffProcess[] = [];
const clients: TestClient[] = [];

before(async () => {
	model = await startFakeOpenAi();
});
after(async () => {
	for (const client of clients) client.close();
	for (const skiff of running) await skiff.stop();
	await model.close();
});

/** Starts skiff with this global settings.json (as text or JSON; undefined: no file) and connects a client. */
async function start(settings: unknown, options: { agentDir?: string; cwd?: string; args?: string[]; env?: Record<string, string> } = {}) {
	const agentDir = options.agentDir ?? tempDir();
	const cwd = options.cwd ?? tempDir("project-");
	writeFakeModelsJson(agentDir, model.url);
	if (settings !== undefined) writeFileSync(join(agentDir, "settings.json"), typeof settings === "string" ? settings : JSON.stringify(settings, null, 4));
	const skiff = await startSkiff({ agentDir, cwd, args: options.args, env: options.env });
	running.push(skiff);
	const client = await TestClient.connect(skiff.wsUrl);
	clients.push(client);
	return { skiff, agentDir, cwd, client, globalPath: join(agentDir, "settings.json") };
}

const view = (inspection: any, key: string) => inspection.values.find((v: any) => v.key === key);
const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8"));

test("settings.json reaches every new session: model defaults, thinking level, queue modes, compaction and retry", async () => {
	const { client } = await start({
		defaultProvider: "fake",
		defaultModel: "fake-reasoner",
		defaultThinkingLevel: "high",
		steeringMode: "all",
		followUpMode: "all",
		compaction: { enabled: false, reserveTokens: 4096 },
		retry: { enabled: false },
	});
	for (const state of [await client.ok({ type: "get_state" }), (await client.ok({ type: "new_session" })).state]) {
		assert.equal(state.model.id, "fake-reasoner", "defaultProvider/defaultModel pick the model");
		assert.equal(state.thinkingLevel, "high");
		assert.equal(state.steeringMode, "all");
		assert.equal(state.followUpMode, "all");
		assert.equal(state.autoCompactionEnabled, false, "compaction.enabled false turns automatic compaction off");
		assert.equal(state.autoRetryEnabled, false);
	}
	const inspection = await client.ok({ type: "settings_inspect" });
	assert.deepEqual(
		[view(inspection, "compaction.reserveTokens").effectiveValue, view(inspection, "compaction.reserveTokens").source],
		[4096, "global"],
	);
	assert.deepEqual([view(inspection, "compaction.keepRecentTokens").effectiveValue, view(inspection, "compaction.keepRecentTokens").source], [20000, "default"]);
});

test("compaction settings reach pi: a full context compacts only while compaction.enabled, switched live", async () => {
	// The fake model's window is 32,000 tokens: reserving 31,900 makes any reply fill it.
	const { client } = await start({ compaction: { enabled: false, reserveTokens: 31_900 } });
	const turn = async (message: string) => {
		const from = client.events.length;
		await client.ok({ type: "prompt", message });
		await client.waitForEvent((e) => e.type === "agent_end", 20_000, from);
		return from;
	};
	await turn("REPLY one");
	// A prompt waits until pi has settled the previous reply (where it decides to compact).
	const second = await turn("REPLY two");
	const beforeSecond = client.events.slice(0, second);
	assert.ok(beforeSecond.some((e) => e.type === "agent_end"));
	assert.equal(beforeSecond.filter((e) => e.type === "compaction_start").length, 0, "no automatic compaction while disabled");

	const draft = await client.ok({ type: "settings_open_draft", scope: "global" });
	await client.ok({ type: "settings_set", draftId: draft.draftId, key: "compaction.enabled", value: true });
	const from = client.events.length;
	assert.deepEqual((await client.ok({ type: "settings_apply", draftId: draft.draftId })).appliedLive, ["compaction.enabled"]);
	assert.equal((await client.ok({ type: "get_state" })).autoCompactionEnabled, true);
	await turn("REPLY three");
	const started = await client.waitForEvent((e) => e.type === "compaction_start", 20_000, from);
	assert.equal(started.reason, "threshold", "the reserve from settings.json decides when the context is full");
	await client.waitForEvent((e) => e.type === "compaction_end", 20_000, from);
});

test("a draft applied: the file keeps what Skiff does not know, live keys change loaded sessions, every client hears of it", async () => {
	const { skiff, client, globalPath } = await start({ lastChangelogVersion: "0.70.0", custom: { keep: [1, 2] }, steeringMode: "all" });
	const watcher = await TestClient.connect(skiff.wsUrl);
	clients.push(watcher);
	const other = await client.ok({ type: "new_session" });
	await watcher.ok({ type: "subscribe", sessionId: other.sessionId });

	let inspection = await client.ok({ type: "settings_inspect" });
	assert.equal(inspection.globalPath, globalPath);
	const steering = view(inspection, "steeringMode");
	assert.deepEqual([steering.effectiveValue, steering.source, steering.globalValue, steering.default], ["all", "global", "all", "one-at-a-time"]);
	assert.deepEqual([steering.type, steering.enum, steering.applies, steering.scopes], ["enum", ["all", "one-at-a-time"], "live", ["global", "project"]]);
	assert.equal(view(inspection, "retry.maxRetries").allowed, "an integer from 0 to 100");

	const draft = await client.ok({ type: "settings_open_draft", scope: "global" });
	assert.deepEqual(draft.values, { steeringMode: "all" });
	await client.ok({ type: "settings_set", draftId: draft.draftId, key: "compaction.enabled", value: false });
	await client.ok({ type: "settings_set", draftId: draft.draftId, key: "retry.maxRetries", value: 7 });
	await client.ok({ type: "settings_set", draftId: draft.draftId, key: "defaultThinkingLevel", value: "low" });
	const edited = await client.ok({ type: "settings_reset", draftId: draft.draftId, key: "steeringMode" });
	assert.deepEqual(edited.changed.sort(), ["compaction.enabled", "defaultThinkingLevel", "retry.maxRetries", "steeringMode"]);
	assert.deepEqual((await client.ok({ type: "settings_validate", draftId: draft.draftId })).problems, []);
	const applied = await client.ok({ type: "settings_apply", draftId: draft.draftId });
	assert.deepEqual(applied.appliedLive.sort(), ["compaction.enabled", "retry.maxRetries", "steeringMode"]);
	assert.deepEqual(applied.newSessions, ["defaultThinkingLevel"]);
	assert.deepEqual(applied.restartRequired, []);

	assert.deepEqual(readJson(globalPath), {
		lastChangelogVersion: "0.70.0",
		custom: { keep: [1, 2] },
		compaction: { enabled: false },
		retry: { maxRetries: 7 },
		defaultThinkingLevel: "low",
	});
	for (const sessionId of [undefined, other.sessionId]) {
		const state = await client.ok({ type: "get_state", sessionId });
		assert.deepEqual([state.steeringMode, state.autoCompactionEnabled], ["one-at-a-time", false], "live keys reach every loaded session");
	}
	const changed = await watcher.waitForEvent((e) => e.type === "settings_changed", 5_000);
	assert.equal(changed.sessionId, other.sessionId);
	assert.deepEqual([changed.scope, changed.path], ["global", globalPath]);
	assert.ok(changed.keys.includes("retry.maxRetries"));
	await assert.rejects(client.ok({ type: "settings_apply", draftId: draft.draftId }), /Unknown settings draft/, "an applied draft is gone");

	// A session's own switch shows as `runtime` until a settings change of that key reaches it.
	await client.ok({ type: "set_steering_mode", mode: "all" });
	inspection = await client.ok({ type: "settings_inspect" });
	assert.deepEqual([view(inspection, "steeringMode").source, view(inspection, "steeringMode").effectiveValue], ["runtime", "all"]);
	const otherInspection = await client.ok({ type: "settings_inspect", sessionId: other.sessionId });
	assert.equal(view(otherInspection, "steeringMode").source, "default", "another session's values are its own");
});

test("a project's .skiff/settings.json counts only once the project is trusted, and only for project keys", async () => {
	const { client, agentDir, cwd } = await start(undefined);
	mkdirSync(join(cwd, ".skiff"));
	const projectPath = join(cwd, ".skiff", "settings.json");
	writeFileSync(projectPath, JSON.stringify({ followUpMode: "all", memory: { remoteBankId: "project-bank" } }));

	assert.equal((await client.ok({ type: "get_state" })).followUpMode, "one-at-a-time", "an untrusted project is ignored");
	let inspection = await client.ok({ type: "settings_inspect" });
	assert.deepEqual([inspection.projectTrusted, inspection.projectPath, view(inspection, "followUpMode").source], [false, projectPath, "default"]);
	assert.equal(view(inspection, "followUpMode").editableProject, false);
	const refused = await client.request({ type: "settings_open_draft", scope: "project" });
	assert.deepEqual([refused.success, refused.code], [false, "forbidden"]);
	assert.match(refused.error!, /is not trusted.*project_trust/);
	assert.equal(existsSync(join(agentDir, "trust.json")), false, "nothing trusts a project but project_trust");

	const trusted = await client.ok({ type: "project_trust", trusted: true });
	assert.deepEqual([trusted.trusted, trusted.projectPath, trusted.keys, trusted.appliedLive], [true, projectPath, ["followUpMode"], ["followUpMode"]]);
	assert.equal(readJson(join(agentDir, "trust.json")).projects[trusted.projectFolder].trusted, true);
	assert.equal((await client.ok({ type: "get_state" })).followUpMode, "all", "trusting applies the project's live keys at once");
	inspection = await client.ok({ type: "settings_inspect" });
	assert.deepEqual([view(inspection, "followUpMode").source, view(inspection, "followUpMode").projectValue], ["project", "all"]);
	assert.equal(view(inspection, "memory.remoteBankId").source, "default", "a global-only key in a project file is ignored");
	assert.match(inspection.problems.map((p: any) => p.message).join("\n"), /`memory.remoteBankId` can only be set in the global settings/);

	const draft = await client.ok({ type: "settings_open_draft", scope: "project" });
	assert.equal(draft.path, projectPath);
	const globalOnly = await client.request({ type: "settings_set", draftId: draft.draftId, key: "memory.remoteApiUrl", value: "https://m.example" });
	assert.match(globalOnly.error!, /`memory.remoteApiUrl` can only be set in the global settings/);
	await client.ok({ type: "settings_set", draftId: draft.draftId, key: "memory.backend", value: "off" });
	await client.ok({ type: "settings_reset", draftId: draft.draftId, key: "memory.remoteBankId" });
	const applied = await client.ok({ type: "settings_apply", draftId: draft.draftId });
	assert.deepEqual([applied.scope, applied.keys], ["project", ["memory.backend"]]);
	assert.deepEqual(readJson(projectPath), { followUpMode: "all", memory: { backend: "off" } });
	assert.equal((await client.ok({ type: "memory_get_settings" })).backend, "off", "the project's memory backend applies at once");
	const elsewhere = await client.ok({ type: "new_session", cwd: tempDir("elsewhere-") });
	assert.equal((await client.ok({ type: "memory_get_settings", sessionId: elsewhere.sessionId })).backend, "local", "only in the project");

	const untrusted = await client.ok({ type: "project_trust", trusted: false });
	assert.deepEqual(untrusted.keys.sort(), ["followUpMode", "memory.backend"]);
	assert.equal((await client.ok({ type: "get_state" })).followUpMode, "one-at-a-time");
	assert.equal((await client.ok({ type: "memory_get_settings" })).backend, "local");
});

test("memory.backend persists through settings_apply (memory_set_backend stays a run-time switch)", async () => {
	const agentDir = tempDir();
	const first = await start(undefined, { agentDir });
	await first.client.ok({ type: "memory_set_backend", backend: "off" });
	assert.equal(existsSync(first.globalPath), false, "memory_set_backend writes nothing");
	const draft = await first.client.ok({ type: "settings_open_draft", scope: "global" });
	await first.client.ok({ type: "settings_set", draftId: draft.draftId, key: "memory.backend", value: "off" });
	const applied = await first.client.ok({ type: "settings_apply", draftId: draft.draftId });
	assert.deepEqual(applied.appliedLive, ["memory.backend"]);
	assert.deepEqual(readJson(first.globalPath), { memory: { backend: "off" } });
	await first.skiff.stop();

	const second = await start(undefined, { agentDir });
	assert.equal((await second.client.ok({ type: "memory_get_settings" })).backend, "off", "the backend survives a restart");
});

test("bad input: each is a clear error naming what is wrong, and the files stay as they were", async () => {
	const original = `{\n\t"steeringMode": "all",\n\t"memory": {"remoteApiUrl": "https://m.example"}\n}\n`;
	const { client, globalPath, cwd } = await start(original);
	const unchanged = () => assert.equal(readFileSync(globalPath, "utf8"), original, "the global file is untouched");
	const draft = (await client.ok({ type: "settings_open_draft", scope: "global" })).draftId;
	const failure = async (command: Record<string, unknown>, code: string, message: RegExp) => {
		const response = await client.request(command);
		assert.equal(response.success, false, `${String(command.type)} ${JSON.stringify(command)} should fail`);
		assert.equal(response.code, code, response.error);
		assert.match(response.error!, message);
		return response.error!;
	};

	await failure({ type: "settings_set", draftId: draft, key: "compaction.reserveTokens", value: "lots" }, "invalid_command", /`compaction.reserveTokens` must be an integer from 1 to 1000000 \(got "lots"\)/);
	await failure({ type: "settings_set", draftId: draft, key: "retry.maxRetries", value: 101 }, "invalid_command", /`retry.maxRetries` must be an integer from 0 to 100 \(got 101\)/);
	await failure({ type: "settings_set", draftId: draft, key: "steeringMode", value: "sometimes" }, "invalid_command", /`steeringMode` must be one of all, one-at-a-time \(got "sometimes"\)/);
	await failure({ type: "settings_set", draftId: draft, key: "compaction.enabled", value: "no" }, "invalid_command", /`compaction.enabled` must be true or false/);
	await failure({ type: "settings_set", draftId: draft, key: "memory.remoteRecallTypes", value: [] }, "invalid_command", /must be a non-empty list of world, experience, observation/);
	await failure({ type: "settings_set", draftId: draft, key: "theme", value: "dark" }, "invalid_command", /Unknown setting `theme`/);
	await failure({ type: "settings_set", draftId: draft, key: "steeringMode" }, "invalid_command", /missing field `value`/);
	await failure({ type: "settings_set", draftId: "no-such-draft", key: "steeringMode", value: "all" }, "not_found", /Unknown settings draft no-such-draft/);
	await failure({ type: "settings_open_draft", scope: "everywhere" }, "invalid_command", /`scope` must be one of global, project/);

	// A secret: never the literal, a $VAR reference only, and the value never comes back.
	const literal = "sk-live-0123456789abcdefghij";
	const secretError = await failure(
		{ type: "settings_set", draftId: draft, key: "memory.remoteApiToken", value: literal },
		"invalid_command",
		/is a secret.*environment variable/,
	);
	assert.ok(!secretError.includes(literal));
	const withReference = await client.ok({ type: "settings_set", draftId: draft, key: "memory.remoteApiToken", value: "$SETTINGS_TEST_UNSET_TOKEN" });
	assert.equal(withReference.values["memory.remoteApiToken"], "[REDACTED]");
	assert.match(withReference.problems.map((p: any) => p.message).join("\n"), /memory.remoteApiToken refers to \$SETTINGS_TEST_UNSET_TOKEN, which is not set/);
	await failure({ type: "settings_apply", draftId: draft }, "invalid_command", /nothing was written: .*SETTINGS_TEST_UNSET_TOKEN/);
	await client.ok({ type: "settings_reset", draftId: draft, key: "memory.remoteApiToken" });
	await client.ok({ type: "settings_set", draftId: draft, key: "defaultProvider", value: "fake" });
	await failure({ type: "settings_apply", draftId: draft }, "invalid_command", /`defaultProvider` needs `defaultModel` too/);
	await client.ok({ type: "settings_reset", draftId: draft, key: "defaultProvider" });
	unchanged();

	// A stale draft: the file changed since it was opened (formatting alone is no change).
	await client.ok({ type: "settings_set", draftId: draft, key: "followUpMode", value: "all" });
	writeFileSync(globalPath, JSON.stringify(JSON.parse(original)));
	const reformatted = readFileSync(globalPath, "utf8");
	const edited = JSON.stringify({ ...JSON.parse(original), steeringMode: "one-at-a-time" });
	writeFileSync(globalPath, edited);
	await failure({ type: "settings_apply", draftId: draft }, "conflict", /changed since draft .* was opened.*nothing was written/);
	assert.equal(readFileSync(globalPath, "utf8"), edited, "the other writer's change stays");
	writeFileSync(globalPath, reformatted);
	const fresh = (await client.ok({ type: "settings_open_draft", scope: "global" })).draftId;
	writeFileSync(globalPath, original); // the same content, formatted differently
	await client.ok({ type: "settings_set", draftId: fresh, key: "followUpMode", value: "all" });
	await client.ok({ type: "settings_cancel", draftId: fresh });
	await failure({ type: "settings_apply", draftId: fresh }, "not_found", /Unknown settings draft/);
	unchanged();

	// An untrusted project: no draft, nothing written there.
	await failure({ type: "settings_open_draft", scope: "project" }, "forbidden", /is not trusted/);
	assert.equal(existsSync(join(cwd, ".skiff")), false);

	// A settings file that does not parse: its path and position, and it is never overwritten.
	const broken = `{\n  "steeringMode": "all",\n  oops\n}\n`;
	writeFileSync(globalPath, broken);
	await failure({ type: "settings_open_draft", scope: "global" }, "io_error", new RegExp(`${globalPath.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} is not valid JSON \\(line 3, column 3\\)`));
	const inspection = await client.ok({ type: "settings_inspect" });
	assert.match(inspection.globalError, /line 3, column 3/);
	assert.equal(readFileSync(globalPath, "utf8"), broken);
});

test("start-up refuses a settings.json that does not parse or holds a value that does not fit, naming file and key, before announcing itself", async () => {
	for (const [content, message] of [
		['{"steeringMode": "all",}', /settings\.json is not valid JSON \(line 1, column 24\)/],
		['{"compaction": {"reserveTokens": -1}}', /`compaction.reserveTokens` must be an integer from 1 to 1000000 \(got -1\) in .*settings\.json/],
		['{"memory": {"remoteScoping": "tribal"}}', /`memory.remoteScoping` must be one of global, per-project, per-project-tagged/],
		['{"memory": {"backend": "remote"}}', /memory\.remoteApiUrl is required when memory\.backend is remote/],
		['{"memory": {"backend": "remote", "remoteApiUrl": "https://m.example", "remoteApiToken": "$NOT_SET_ANYWHERE"}}', /memory\.remoteApiToken refers to \$NOT_SET_ANYWHERE/],
	] as const) {
		const agentDir = tempDir();
		writeFileSync(join(agentDir, "settings.json"), content);
		const { code, output } = await runSkiffInOrder(["--listen", "127.0.0.1:0"], { SKIFF_AGENT_DIR: agentDir });
		assert.notEqual(code, 0, content);
		assert.match(output, message);
		// The refusal is all there is: the service never said it was listening (a client would have connected).
		assert.doesNotMatch(output, /listening|Web UI/, content);
	}
});

test("an unknown key under memory is left alone with a warning naming it; the service starts", async () => {
	const { skiff, client, globalPath } = await start({ memory: { backend: "local", colour: "red", remoteBankId: "kept" } });
	await skiff.ready;
	assert.match(skiff.stderr(), /warning: settings: memory\.colour is not a memory setting; it is ignored \(and left in the file\)/);
	const settings = await client.ok({ type: "memory_get_settings" });
	assert.equal(settings.backend, "local");
	assert.equal(settings.remoteBankId, "kept", "the keys it knows still count");
	assert.equal(readJson(globalPath).memory.colour, "red");
});
