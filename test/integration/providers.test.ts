/**
 * Every model provider SDK that is not bundled (scripts/bundle.mjs: they are required from node_modules on first
 * use, and Bedrock's provider with its SDK) loads and runs: a prompt to a model of each kind gets as far as the
 * network and fails there, at a loopback port where nothing listens, instead of failing to load or to construct its
 * client.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { portForRestart } from "../support/restart-port.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { TestClient } from "../support/ws-client.js";

/** pi-ai's model kinds whose SDK is one of the packages left out of the bundle. */
const KINDS = [
	{ api: "openai-completions", sdk: "openai" },
	{ api: "openai-responses", sdk: "openai" },
	{ api: "anthropic-messages", sdk: "@anthropic-ai/sdk" },
	{ api: "google-generative-ai", sdk: "@google/genai" },
	{ api: "mistral-conversations", sdk: "@mistralai/mistralai" },
	// pi-ai imports this provider by a specifier held in a variable: the bundle requires it unbundled.
	{ api: "bedrock-converse-stream", sdk: "@aws-sdk/client-bedrock-runtime" },
];

let skiff: SkiffProcess;
let client: TestClient;

before(async () => {
	const agentDir = tempDir();
	// A free port below the ephemeral range: a connection to one inside it could be given that same port as its
	// source port and connect to itself instead of being refused.
	const baseUrl = `http://127.0.0.1:${await portForRestart()}/v1`;
	const providers = Object.fromEntries(
		KINDS.map(({ api }) => [`dead-${api}`, { baseUrl, api, apiKey: "test-key", models: [{ id: "m", contextWindow: 32000, maxTokens: 1024 }] }]),
	);
	writeFileSync(join(agentDir, "models.json"), JSON.stringify({ providers }));
	// AWS credentials in the environment, and no instance metadata lookup: Bedrock's request goes to the dead port.
	const aws = { AWS_ACCESS_KEY_ID: "test", AWS_SECRET_ACCESS_KEY: "test", AWS_REGION: "us-east-1", AWS_EC2_METADATA_DISABLED: "true" };
	skiff = await startSkiff({ agentDir, cwd: tempDir(), args: ["--model", `dead-${KINDS[0]!.api}/m`], env: aws });
	client = await TestClient.connect(skiff.wsUrl);
	await client.ok({ type: "set_auto_retry", enabled: false }); // one failed call is the whole test
});

after(async () => {
	client?.close();
	await skiff?.stop();
});

for (const { api, sdk } of KINDS) {
	test(`${api}: ${sdk} loads on first use and its request reaches the network`, async () => {
		await client.ok({ type: "set_model", provider: `dead-${api}`, modelId: "m" });
		const from = client.events.length;
		await client.ok({ type: "prompt", message: "hello" });
		await client.waitForEvent((e) => e.type === "agent_end", 30_000, from);
		const ended = client.events.slice(from).filter((e) => e.type === "message_end" && e.message.role === "assistant");
		const reply = ended.at(-1)?.message as { stopReason?: string; errorMessage?: string } | undefined;
		assert.equal(reply?.stopReason, "error");
		const error = reply?.errorMessage ?? "";
		assert.doesNotMatch(error, /Cannot find (module|package)|is not a constructor|is not a function|of undefined|ERR_/, error);
		assert.match(error, /connect|connection|fetch failed|ECONNREFUSED|network/i, error);
	});
}
