/** The remote memory client against the fake Hindsight server: bodies, scoping, every rule and fault. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { HindsightClient } from "@vectorize-io/hindsight-client";
import { RemoteMemoryClient } from "../../../src/features/memory/remote-client.js";
import { remoteScope } from "../../../src/features/memory/remote-scope.js";
import { DEFAULT_MEMORY_SETTINGS, type MemorySettings } from "../../../src/features/memory/settings.js";
import { type FakeHindsight, startFakeHindsight } from "../../support/fake-hindsight.js";
import { tempDir } from "../../support/skiff-process.js";

let plain: FakeHindsight;
let secure: FakeHindsight;
let locked: FakeHindsight;
const cwd = tempDir("myrepo-");

before(async () => {
	plain = await startFakeHindsight();
	secure = await startFakeHindsight({ https: true });
	locked = await startFakeHindsight({ apiKey: "hs-key-123" });
});
after(async () => {
	await Promise.all([plain.close(), secure.close(), locked.close()]);
});

const settings = (overrides: Partial<MemorySettings> = {}): MemorySettings => ({
	...DEFAULT_MEMORY_SETTINGS,
	backend: "remote",
	remoteApiUrl: plain.url,
	remoteAllowInsecure: true,
	...overrides,
});
const last = (server: FakeHindsight) => server.requests.at(-1)!;

test("the official Hindsight client is accepted by the fake (so the fake stays honest)", async () => {
	const official = new HindsightClient({ baseUrl: plain.url });
	await official.createBank("official-bank", { reflectMission: "be useful" } as never);
	await official.retain("official-bank", "The deploy key rotates monthly", { tags: ["ops"] } as never);
	const recalled = await official.recall("official-bank", "deploy key", {} as never);
	assert.ok(JSON.stringify(recalled).includes("rotates monthly"));
	await official.reflect("official-bank", "when does the deploy key rotate?", {} as never);
	assert.ok(plain.requests.filter((r) => r.path.includes("official-bank")).every((r) => r.status === 200), JSON.stringify(plain.requests.map((r) => [r.path, r.status])));
});

test("per-project-tagged: one bank, project tag on retain, tags_match any on recall and reflect; PUT first", async () => {
	const client = new RemoteMemoryClient(settings({ remoteBankMission: "remember builds", remoteRetainMission: "facts only" }));
	const scope = remoteScope(settings(), cwd);
	assert.equal(scope.bank, "rpi");
	assert.match(scope.tags![0]!, /^project:myrepo-[A-Za-z0-9]+-[0-9a-f]{12}$/);
	const from = plain.requests.length;
	assert.equal(await client.retain("the cache lives in target/", "build", scope), "1 memory retained.");
	const [put, retain] = plain.requests.slice(from);
	assert.equal(put!.method, "PUT");
	assert.deepEqual(put!.body, { reflect_mission: "remember builds", retain_mission: "facts only" });
	assert.deepEqual(retain!.body, { items: [{ content: "the cache lives in target/", context: "build", tags: scope.tags }], async: false });
	assert.match(await client.recall("where is the cache", scope), /- the cache lives in target\/ \[world\]/);
	assert.deepEqual(last(plain).body, { query: "where is the cache", types: ["world", "experience"], max_tokens: 1024, budget: "mid", include: { entities: null }, tags: scope.tags, tags_match: "any" });
	assert.match(await client.reflect("cache location?", undefined, scope), /target/);
	assert.deepEqual(last(plain).body, { query: "cache location?", budget: "mid", fact_types: ["world", "experience"], max_tokens: 1024, tags: scope.tags, tags_match: "any" });
	assert.deepEqual(
		plain.requests.slice(from).map((r) => r.operationId),
		["create_or_update_bank", "retain_memories", "recall_memories", "create_or_update_bank", "reflect"],
		"the bank PUT comes before every retain and reflect",
	);
	assert.ok(plain.requests.slice(from).every((r) => r.status === 200));
});

test("reflect asks as recall does: query, budget, types, token limit and the namespace tags", async () => {
	const tuned = settings({ remoteRecallBudget: "high", remoteRecallTypes: ["observation", "world"], remoteRecallMaxTokens: 321 });
	const client = new RemoteMemoryClient(tuned);
	const scope = remoteScope(tuned, cwd);
	await client.retain("the release train leaves on fridays", undefined, scope);
	await client.reflect("when does the release train leave?", "planning", scope);
	const reflect = last(plain);
	assert.equal(reflect.operationId, "reflect");
	assert.equal(reflect.status, 200, JSON.stringify(reflect.body));
	assert.deepEqual(reflect.body, {
		query: "when does the release train leave?",
		budget: "high",
		fact_types: ["observation", "world"],
		max_tokens: 321,
		tags: scope.tags,
		tags_match: "any",
		context: "planning",
	});
	// The types filter what reflect draws on: the fake stores retained facts as "world".
	await new RemoteMemoryClient(settings({ remoteRecallTypes: ["experience"] })).reflect("release train", undefined, scope);
	assert.deepEqual((last(plain).body as { fact_types: string[] }).fact_types, ["experience"]);
});

test("a bank deleted on the server between two retains is made again, with its missions, before the second", async () => {
	const missions = settings({ remoteScoping: "global", remoteBankId: "recreated", remoteBankMission: "keep decisions", remoteRetainMission: "facts only" });
	const client = new RemoteMemoryClient(missions);
	const scope = remoteScope(missions, cwd);
	await client.retain("first fact", undefined, scope);
	assert.equal(plain.banks.get("recreated")?.retain_mission, "facts only");
	plain.banks.delete("recreated"); // deleted by someone else (the server's own API, an operator)
	const from = plain.requests.length;
	await client.retain("second fact", undefined, scope);
	assert.deepEqual(
		plain.requests.slice(from).map((r) => [r.operationId, r.status]),
		[
			["create_or_update_bank", 200],
			["retain_memories", 200],
		],
	);
	const bank = plain.banks.get("recreated");
	assert.equal(bank?.reflect_mission, "keep decisions");
	assert.equal(bank?.retain_mission, "facts only");
	assert.deepEqual(bank?.facts.map((f) => f.text), ["second fact"]);
});

test("global and per-project scoping send no tags and no null fields", async () => {
	const global = remoteScope(settings({ remoteScoping: "global", remoteBankIdPrefix: "team" }), cwd);
	assert.deepEqual(global, { bank: "team-rpi" });
	const perProject = remoteScope(settings({ remoteScoping: "per-project" }), cwd);
	assert.match(perProject.bank, /^rpi-myrepo-[A-Za-z0-9]+-[0-9a-f]{12}$/);
	assert.deepEqual(remoteScope(settings({ remoteScoping: "per-project" }), tempDir("myrepo-")).bank === perProject.bank, false, "same-named projects stay apart");
	for (const scope of [global, perProject]) {
		const client = new RemoteMemoryClient(settings());
		await client.retain("fact for " + scope.bank, undefined, scope);
		assert.deepEqual(last(plain).body, { items: [{ content: "fact for " + scope.bank }], async: false });
		await client.recall("fact", scope);
		const body = last(plain).body as Record<string, unknown>;
		assert.equal("tags" in body || "tags_match" in body, false);
		assert.equal(last(plain).status, 200);
		assert.ok(!/:null[,}]/.test(JSON.stringify(body).replace('"entities":null', "")), "no null fields");
	}
});

test("empty or oversized inputs are refused before any request", async () => {
	const client = new RemoteMemoryClient(settings());
	const scope = remoteScope(settings(), cwd);
	const before = plain.requests.length;
	await assert.rejects(client.recall("  ", scope), /recall query is required/);
	await assert.rejects(client.retain("", undefined, scope), /retain content is required/);
	await assert.rejects(client.reflect("x".repeat(1024 * 1024 + 1), undefined, scope), /reflect query exceeds the 1 MiB limit/);
	await assert.rejects(client.retain("ok", "y".repeat(1024 * 1024 + 1), scope), /retain context exceeds the 1 MiB limit/);
	assert.equal(plain.requests.length, before);
});

test("HTTP errors name the operation and status, redact credentials, and a failing bank PUT stops retain and reflect", async () => {
	const client = new RemoteMemoryClient(settings());
	const scope = remoteScope(settings(), cwd);
	plain.fault({ operationId: "recall_memories", status: 500, body: '{"detail":"db down, token=supersecret123"}' });
	await assert.rejects(client.recall("anything", scope), (e: Error) => /remote memory recall failed \(HTTP 500\)/.test(e.message) && !e.message.includes("supersecret123"));
	for (const [op, call] of [["retain", () => client.retain("x", undefined, scope)], ["reflect", () => client.reflect("x", undefined, scope)]] as const) {
		plain.fault({ operationId: "create_or_update_bank", status: 503 });
		const before = plain.requests.length;
		await assert.rejects(call(), /remote memory createBank failed \(HTTP 503\)/);
		assert.equal(plain.requests.length, before + 1, `${op} was not sent after the failed PUT`);
	}
	plain.fault({ operationId: "recall_memories", invalidJson: true });
	await assert.rejects(client.recall("anything", scope), /remote memory recall returned invalid JSON/);
	plain.fault({ operationId: "recall_memories", oversizedBytes: 300 * 1024 });
	await assert.rejects(client.recall("anything", scope), /response exceeds the 262144-byte limit/);
	plain.fault({ operationId: "recall_memories", status: 422, body: "x".repeat(300 * 1024) });
	await assert.rejects(client.recall("anything", scope), /HTTP 422/, "an oversized error body still reports its status");
});

test("every operation has its own deadline: slow headers and slow bodies time out", async () => {
	const client = new RemoteMemoryClient(settings({ remoteRecallTimeoutMs: 300, remoteRequestTimeoutMs: 300 }));
	const scope = remoteScope(settings(), cwd);
	plain.fault({ operationId: "recall_memories", delayHeadersMs: 1500 });
	await assert.rejects(client.recall("anything", scope), /remote memory recall timed out after 1 s/);
	plain.fault({ operationId: "recall_memories", trickleMs: 100 });
	await assert.rejects(client.recall("anything", scope), /timed out/);
	plain.fault({ operationId: "create_or_update_bank", delayHeadersMs: 1500 });
	await assert.rejects(client.retain("x", undefined, scope), /createBank timed out/);
	const controller = new AbortController();
	plain.fault({ operationId: "recall_memories", delayHeadersMs: 1000 });
	setTimeout(() => controller.abort(), 100);
	await assert.rejects(new RemoteMemoryClient(settings()).recall("x", scope, controller.signal), /aborted/);
});

test("plaintext is refused unless allowed; in secure mode a redirect to http fails before it is contacted", async () => {
	const scope = remoteScope(settings(), cwd);
	const before = plain.requests.length;
	await assert.rejects(new RemoteMemoryClient(settings({ remoteAllowInsecure: false })).recall("x", scope), /refusing plaintext remote memory endpoint/);
	assert.equal(plain.requests.length, before);

	const tls = { remoteApiUrl: secure.url, remoteAllowInsecure: false, remoteApiToken: "tls-token-abc" };
	const client = new RemoteMemoryClient(settings(tls), { ca: secure.ca });
	assert.equal(await client.recall("nothing here", scope), "No relevant memories found.");
	assert.equal(last(secure).headers.authorization, "Bearer tls-token-abc");
	secure.fault({ operationId: "recall_memories", redirectTo: `${plain.url}/v1/default/banks/rpi/memories/recall`, redirectStatus: 307 });
	await assert.rejects(client.recall("x", scope), /refusing remote memory recall redirect to a plaintext URL/);
	assert.equal(plain.requests.length, before, "the plaintext target was never contacted, so the token never reached it");

	// With the opt-in, http hops are followed; the token is not sent to another origin.
	const insecure = new RemoteMemoryClient(settings({ remoteApiToken: "tok-xyz" }), { ca: secure.ca });
	plain.fault({ operationId: "recall_memories", redirectTo: `${secure.url}/v1/default/banks/rpi/memories/recall`, redirectStatus: 307 });
	assert.equal(await insecure.recall("nothing", scope), "No relevant memories found.");
	assert.equal(last(secure).headers.authorization, undefined);
});

test("redirect loops stop at the hop limit", async () => {
	const client = new RemoteMemoryClient(settings());
	const scope = remoteScope(settings(), cwd);
	plain.fault({ operationId: "recall_memories", redirectTo: `${plain.url}/v1/default/banks/rpi/memories/recall`, times: 20 });
	await assert.rejects(client.recall("x", scope), /too many remote memory redirects for recall \(limit 10\)/);
	assert.equal(plain.requests.filter((r) => r.status === 307).length >= 11, true);
});

test("the token travels only in Authorization; a wrong token is a 401 naming the operation", async () => {
	const scope = remoteScope(settings(), cwd);
	const good = new RemoteMemoryClient(settings({ remoteApiUrl: locked.url, remoteApiToken: "hs-key-123" }));
	await good.retain("a locked fact", undefined, scope);
	for (const request of locked.requests) {
		assert.equal(request.headers.authorization, "Bearer hs-key-123");
		assert.ok(!request.path.includes("hs-key-123") && !JSON.stringify(request.body).includes("hs-key-123"));
	}
	const bad = new RemoteMemoryClient(settings({ remoteApiUrl: locked.url, remoteApiToken: "wrong" }));
	await assert.rejects(bad.recall("x", scope), /remote memory recall failed \(HTTP 401\): \{"detail":"Invalid API key"\}/);
	// A server that echoes the token in an error never gets it into our error text, whatever its shape.
	const echoing = new RemoteMemoryClient(settings({ remoteApiToken: "plainword42" }));
	plain.fault({ operationId: "recall_memories", status: 400, body: '{"detail":"bad header plainword42"}' });
	await assert.rejects(echoing.recall("x", scope), (e: Error) => /HTTP 400/.test(e.message) && !e.message.includes("plainword42"));
});
