/** The fake model server end to end through pi's own openai-completions client (its SSE alone: fake-openai.test.ts). */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
	AuthStorage,
	type AgentSessionEvent,
	createAgentSession,
	DefaultResourceLoader,
	ModelRegistry,
	SessionManager,
	SettingsManager,
} from "@mariozechner/pi-coding-agent";
import { FAKE_MODEL, FAKE_PROVIDER, FAKE_REASONER, type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";

let server: FakeOpenAiServer;
const root = mkdtempSync(join(tmpdir(), "skiff-fake-openai-pi-"));

before(async () => {
	server = await startFakeOpenAi();
});
after(async () => {
	await server.close();
	rmSync(root, { recursive: true, force: true });
});

async function piSession(modelId: string, thinkingLevel: "off" | "low" = "off") {
	const agentDir = mkdtempSync(join(root, "agent-"));
	const cwd = join(agentDir, "work");
	mkdirSync(cwd);
	writeFakeModelsJson(agentDir, server.url);
	const authStorage = AuthStorage.create(join(agentDir, "auth.json"));
	const modelRegistry = ModelRegistry.create(authStorage, join(agentDir, "models.json"));
	const model = modelRegistry.find(FAKE_PROVIDER, modelId);
	assert.ok(model, `pi does not know ${FAKE_PROVIDER}/${modelId}`);
	const settingsManager = SettingsManager.inMemory({});
	const resourceLoader = new DefaultResourceLoader({
		cwd,
		agentDir,
		settingsManager,
		noExtensions: true,
		noSkills: true,
		noPromptTemplates: true,
		noThemes: true,
		noContextFiles: true,
	});
	await resourceLoader.reload();
	const { session } = await createAgentSession({
		cwd,
		agentDir,
		authStorage,
		modelRegistry,
		settingsManager,
		resourceLoader,
		sessionManager: SessionManager.inMemory(cwd),
		model,
		thinkingLevel,
		tools: ["read", "bash", "edit", "write"],
	});
	const events: AgentSessionEvent[] = [];
	session.subscribe((event) => void events.push(event));
	return { session, events };
}

const assistantEvents = (events: AgentSessionEvent[], type: string) =>
	events.flatMap((e) => (e.type === "message_update" && e.assistantMessageEvent.type === type ? [e.assistantMessageEvent] : []));

function finalAssistantText(events: AgentSessionEvent[]): string {
	const ends = events.flatMap((e) => (e.type === "message_end" && e.message.role === "assistant" ? [e.message] : []));
	const last = ends.at(-1);
	assert.ok(last && last.role === "assistant");
	assert.equal(last.stopReason, "stop", last.errorMessage);
	return last.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
}

/** One prompt in a new pi session on `modelId`: its events, and the model requests it made. */
async function promptOnce(modelId: string, text: string) {
	const { session, events } = await piSession(modelId);
	const before = server.requests.length;
	try {
		await session.prompt(text);
	} finally {
		session.dispose();
	}
	return { events, requests: server.requests.slice(before) };
}

test("pi end to end: RUN makes pi execute bash, send the output back, and finish with the text reply", async () => {
	const { events, requests } = await promptOnce(FAKE_MODEL, "RUN echo hi");
	const ends = events.flatMap((e) => (e.type === "tool_execution_end" ? [e] : []));
	assert.equal(ends.length, 1);
	assert.equal(ends[0]!.toolName, "bash");
	assert.equal(ends[0]!.isError, false);
	const output = (ends[0]!.result.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? "").join("");
	assert.equal(output.trim(), "hi");
	assert.ok(assistantEvents(events, "toolcall_delta").length >= 2, "pi saw the arguments arrive in pieces");
	assert.equal(finalAssistantText(events), "Tool result received: hi");
	// Two model requests: the prompt, then the tool result (sent back under role "tool").
	assert.equal(requests.length, 2);
	assert.equal(requests[0]!.body.stream, true);
	assert.deepEqual(requests[0]!.body.stream_options, { include_usage: true });
	assert.ok(requests[0]!.body.tools.some((t: { function: { name: string } }) => t.function.name === "bash"));
	assert.equal(requests[1]!.body.messages.at(-1).role, "tool");
});

test("pi end to end: THINK gives thinking_delta events, also for the plain model at thinking level off", async () => {
	for (const [modelId, level] of [[FAKE_MODEL, "off"], [FAKE_REASONER, "low"]] as const) {
		const { session, events } = await piSession(modelId, level);
		try {
			assert.equal(session.thinkingLevel, level);
			await session.prompt("THINK weighing the options carefully\nREPLY decided");
		} finally {
			session.dispose();
		}
		const thinking = assistantEvents(events, "thinking_delta").map((e) => (e as { delta: string }).delta).join("");
		assert.equal(thinking, "weighing the options carefully", modelId);
		assert.equal(finalAssistantText(events), "decided");
		const usage = events.flatMap((e) => (e.type === "message_end" && e.message.role === "assistant" ? [e.message.usage] : [])).at(-1);
		assert.ok(usage && usage.output > 0, "pi read the usage chunk");
	}
});

test("pi end to end: a thinking level asked for the plain model is clamped to off; the reasoner keeps it", async () => {
	const plain = await piSession(FAKE_MODEL, "low");
	const reasoner = await piSession(FAKE_REASONER, "low");
	try {
		assert.equal(plain.session.thinkingLevel, "off");
		assert.equal(reasoner.session.thinkingLevel, "low");
	} finally {
		plain.session.dispose();
		reasoner.session.dispose();
	}
});

test("pi end to end: ERROR surfaces as the assistant's error message after exactly one request", async () => {
	const { events, requests } = await promptOnce(FAKE_MODEL, "ERROR 400 the model refused this request");
	const last = events.flatMap((e) => (e.type === "message_end" && e.message.role === "assistant" ? [e.message] : [])).at(-1);
	assert.ok(last && last.role === "assistant");
	assert.equal(last.stopReason, "error");
	assert.match(last.errorMessage ?? "", /400 the model refused this request/);
	assert.equal(requests.length, 1);
});
