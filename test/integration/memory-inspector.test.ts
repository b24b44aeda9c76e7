/**
 * The memory inspector: memory_entries lists and searches a session's local store (secrets redacted, long
 * entries cut), memory_forget removes entries by id, and memory_status reports each backend's health, the
 * remote one from one read-only request the fake Hindsight server checks against Hindsight's OpenAPI.
 */
import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { LocalMemoryStore, projectStorePath } from "../../src/features/memory/local-store.js";
import { type FakeHindsight, startFakeHindsight } from "../support/fake-hindsight.js";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { TestClient } from "../support/ws-client.js";

let model: FakeOpenAiServer;
let hindsight: FakeHindsight;
const running: SkiffProcess[] = [];
const clients: TestClient[] = [];

before(async () => {
	model = await startFakeOpenAi();
	hindsight = await startFakeHindsight({ apiKey: "hs-good-token-1234" });
});
after(async () => {
	for (const client of clients) client.close();
	for (const skiff of running) await skiff.stop();
	await model.close();
	await hindsight.close();
});

async function start(memory: Record<string, unknown> | undefined, env: Record<string, string> = {}) {
	const agentDir = tempDir();
	const cwd = tempDir("project-");
	writeFakeModelsJson(agentDir, model.url);
	if (memory) writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ memory }));
	const skiff = await startSkiff({ agentDir, cwd, args: ["--model", "fake/fake-model"], env });
	running.push(skiff);
	const client = await TestClient.connect(skiff.wsUrl);
	clients.push(client);
	return { agentDir, cwd, client };
}

test("memory_entries lists newest first, searches, redacts and cuts; memory_forget removes by id in one write", async () => {
	const { agentDir, cwd, client } = await start(undefined);
	const path = projectStorePath(agentDir, cwd);
	let clock = 1_000;
	const store = new LocalMemoryStore(path, () => clock++);
	const deploy = (await store.learn("deploys happen on Tuesday", ["ops"], "s1")).entry;
	const style = (await store.learn("use tabs for indentation", [], "s1")).entry;
	await store.learn(`long note ${"word ".repeat(2000)}`, [], "s2");
	// Written by hand (learn would have redacted it): the inspector redacts on the way out too.
	appendFileSync(path, `${JSON.stringify({ id: "raw1", content: "the token is ghp_abcdefghijklmnopqrstuvwxyz0123", ts: 5, session: "x" })}\nnot an entry\n`);

	const all = await client.ok({ type: "memory_entries" });
	assert.equal(all.namespace, "project");
	assert.equal(all.path, path);
	assert.equal(all.backend, "local");
	assert.equal(all.total, 4);
	assert.equal(all.unreadable, 1);
	assert.deepEqual(all.entries.map((e: any) => e.id).slice(1), [style.id, deploy.id, "raw1"], "newest first");
	const long = all.entries[0];
	assert.equal(long.truncated, true);
	assert.equal(long.content.length, 4000);
	const raw = all.entries.find((e: any) => e.id === "raw1");
	assert.equal(raw.content, "the token is [REDACTED]");
	assert.equal(raw.created, new Date(5).toISOString());

	const found = await client.ok({ type: "memory_entries", query: "deploys tuesday" });
	assert.deepEqual(found.entries.map((e: any) => e.id), [deploy.id]);
	assert.deepEqual(found.entries[0].tags, ["ops"]);
	assert.equal((await client.ok({ type: "memory_entries", limit: 2 })).entries.length, 2);

	const forgot = await client.ok({ type: "memory_forget", ids: [deploy.id, "no-such-id"] });
	assert.deepEqual(forgot, { forgotten: [deploy.id], missing: ["no-such-id"] });
	assert.ok(!readFileSync(path, "utf8").includes("Tuesday"));
	assert.ok(readFileSync(path, "utf8").includes("not an entry"), "unreadable lines are kept");
	const before = readFileSync(path, "utf8");
	assert.deepEqual(await client.ok({ type: "memory_forget", ids: ["gone"] }), { forgotten: [], missing: ["gone"] });
	assert.equal(readFileSync(path, "utf8"), before, "nothing to forget: the file is left alone");

	for (const [command, pattern] of [
		[{ type: "memory_forget", ids: [] }, /`ids` must/],
		[{ type: "memory_entries", limit: 0 }, /`limit` must/],
		[{ type: "memory_entries", query: "" }, /`query` must/],
	] as const) {
		const refused = await client.request(command);
		assert.equal(refused.code, "invalid_command");
		assert.match(refused.error!, pattern);
	}
});

test("memory_status: local and off report without a request; a persona session shows its own store", async () => {
	const { client, agentDir, cwd } = await start(undefined);
	const local = await client.ok({ type: "memory_status" });
	assert.equal(local.backend, "local");
	assert.equal(local.healthy, true);
	assert.match(local.detail, /Local memory holds 0 entries/);
	assert.equal(local.local.path, projectStorePath(agentDir, cwd));
	assert.equal(local.remote, undefined);
	const personaRoot = tempDir("persona-");
	const persona = await client.ok({ type: "new_session", personaRoot });
	const status = await client.ok({ type: "memory_status", sessionId: persona.sessionId });
	assert.equal(status.local.namespace, "persona");
	assert.equal(status.local.path, join(personaRoot, "memory", "entries.jsonl"));
	await client.ok({ type: "memory_set_backend", backend: "off" });
	const off = await client.ok({ type: "memory_status" });
	assert.equal(off.healthy, true);
	assert.match(off.detail, /Memory is off/);
	// A store that cannot be read is unhealthy, with the reason.
	await client.ok({ type: "memory_set_backend", backend: "local" });
	const path = projectStorePath(agentDir, cwd);
	mkdirSync(path, { recursive: true }); // a folder where the file should be
	const broken = await client.ok({ type: "memory_status" });
	assert.equal(broken.healthy, false);
	assert.match(broken.detail, /cannot be read/);
});

test("memory_status for the remote backend: one read-only GET of the bank profile; token problems named, never shown", async () => {
	const settings = { backend: "remote", remoteApiUrl: hindsight.url, remoteAllowInsecure: true, remoteApiToken: "$TEST_HS_TOKEN", remoteScoping: "per-project" };
	const good = await start(settings, { TEST_HS_TOKEN: "hs-good-token-1234" });
	const from = hindsight.requests.length;
	const fresh = await good.client.ok({ type: "memory_status" });
	const requests = hindsight.requests.slice(from);
	assert.deepEqual(requests.map((r) => [r.method, r.operationId]), [["GET", "get_bank_profile"]], "exactly one cheap request");
	assert.equal(fresh.healthy, true);
	assert.equal(fresh.remote.reachable, true);
	assert.equal(fresh.remote.bankExists, false);
	assert.match(fresh.remote.bank, /^rpi-project-/);
	assert.equal(fresh.remote.scoping, "per-project");
	assert.equal(fresh.remote.remoteApiToken, "[REDACTED]");
	assert.match(fresh.detail, /does not exist yet \(it is created on the first write\)/);
	assert.ok(!hindsight.banks.has(fresh.remote.bank), "the status request never creates the bank");

	const wrong = await start(settings, { TEST_HS_TOKEN: "hs-wrong-token-9876" });
	const refused = await wrong.client.ok({ type: "memory_status" });
	assert.equal(refused.healthy, false);
	assert.equal(refused.remote.reachable, true);
	assert.match(refused.detail, /refused the token \(HTTP 401\)/);
	assert.ok(!JSON.stringify(refused).includes("hs-wrong-token-9876"));
	const doctor = await wrong.client.ok({ type: "doctor" });
	const memoryCheck = doctor.checks.find((c: any) => c.id === "memory");
	assert.equal(memoryCheck.ok, false);
	assert.match(memoryCheck.fix, /remoteApiToken/);

	const gone = await start({ ...settings, remoteApiUrl: "http://127.0.0.1:1" }, { TEST_HS_TOKEN: "hs-good-token-1234" });
	const unreachable = await gone.client.ok({ type: "memory_status" });
	assert.equal(unreachable.healthy, false);
	assert.equal(unreachable.remote.reachable, false);
	assert.match(unreachable.detail, /remote memory is unreachable/);
});
