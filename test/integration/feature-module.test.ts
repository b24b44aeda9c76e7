/**
 * The feature seam, proven with a feature the product does not have (test/support/example-feature/): one folder
 * and one line added to the feature list give the contract its setting, event and command, and the real core
 * (real pi against the fake model) its service, its tool in top-level sessions and its event on their streams.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createEventRegistry, createSchemaRegistry, createSettingsCatalog } from "../../src/contract.js";
import { type Core, loadCore } from "../../src/core.js";
import { FEATURES } from "../../src/features/index.js";
import type { ClientLink } from "../../src/protocol/context.js";
import type { PublishedEvent } from "../../src/protocol/event-hub.js";
import { exampleFeature } from "../support/example-feature/index.js";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { tempDir } from "../support/skiff-process.js";
import { until } from "../support/until.js";

const WITH_EXAMPLE = [...FEATURES, exampleFeature];

let model: FakeOpenAiServer;
let core: Core;
let client: ClientLink & { close(): void };
const events: PublishedEvent["event"][] = [];

const send = async (command: Record<string, unknown>) => {
	const response = (await core.dispatcher.dispatchValue(command, client)) as { success: boolean; data?: any; error?: string };
	assert.ok(response.success, `${String(command.type)}: ${response.error}`);
	return response.data;
};

before(async () => {
	model = await startFakeOpenAi();
	const agentDir = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	core = await loadCore({ agentDir, cwd: tempDir(), session: { kind: "new" }, model: "fake/fake-model", features: WITH_EXAMPLE });
	client = core.dispatcher.eventClient((published) => events.push(published.event));
});

after(async () => {
	client?.close();
	await core?.runtime.shutdown();
	await model?.close();
});

test("the contract lists a new feature's setting, event and command from the list alone, and not without it", () => {
	assert.ok(createSchemaRegistry(WITH_EXAMPLE).get("example_note"));
	assert.ok(createEventRegistry(WITH_EXAMPLE).get("example_noted"));
	assert.ok(createSettingsCatalog(WITH_EXAMPLE).get("example.prefix"));
	assert.equal(createSchemaRegistry().get("example_note"), undefined, "the product's own list has no example feature");
	assert.equal(createEventRegistry().get("example_noted"), undefined);
	assert.equal(createSettingsCatalog().get("example.prefix"), undefined);
});

test("the running core serves the new feature's command, publishes its event, gives sessions its tool and honours its setting", async () => {
	assert.deepEqual(await send({ type: "example_note", note: "first" }), { count: 1 });
	await until(() => events.some((e) => e.type === "example_noted"), "example_noted");
	assert.equal((events.find((e) => e.type === "example_noted") as { note?: string }).note, "first");

	const readOut = async () => {
		const before = events.filter((e) => e.type === "agent_end").length;
		await send({ type: "prompt", message: "CALL example_notes {}" });
		await until(() => events.filter((e) => e.type === "agent_end").length > before);
		const { messages } = await send({ type: "get_messages" });
		const result = messages.findLast((m: { role: string }) => m.role === "toolResult");
		return { toolName: result.toolName, text: result.content.map((c: { text?: string }) => c.text ?? "").join("") };
	};
	assert.deepEqual(await readOut(), { toolName: "example_notes", text: "note: first" });

	const { draftId } = await send({ type: "settings_open_draft", scope: "global" });
	await send({ type: "settings_set", draftId, key: "example.prefix", value: "memo" });
	await send({ type: "settings_apply", draftId });
	assert.deepEqual(await readOut(), { toolName: "example_notes", text: "memo: first" });
});
