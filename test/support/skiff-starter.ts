/**
 * A test file's fake model, and a starter for the skiff processes that use it, one at a time: what the session
 * tests (list, lookup, search under load, restarts) each wrote out for themselves.
 */
import { after, before } from "node:test";
import { type FakeOpenAiOptions, type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "./fake-openai.js";
import { type SkiffProcess, startSkiff, tempDir } from "./skiff-process.js";
import { TestClient } from "./ws-client.js";

export interface SkiffStarter {
	/** The fake model: set once the file's `before` hook ran. */
	model: FakeOpenAiServer;
	/** The agent directory `start` uses unless given another: it has the fake model's models.json. */
	agentDir: string;
	/** The working directory `start` uses unless given another. */
	cwd: string;
	/** A new agent directory with the fake model's models.json, for a test that fills it before a start. */
	newAgentDir(): string;
	/**
	 * Stops the skiff this starter started before, if it runs (one skiff per agent directory), starts another
	 * with `--model fake/fake-model` and `args`, and connects a client that has read its state.
	 */
	start(options?: { args?: string[]; agentDir?: string; cwd?: string }): Promise<{ skiff: SkiffProcess; client: TestClient }>;
}

/** Starts the fake model before the file's tests; after them, stops the last skiff and the model. */
export function useSkiffStarter(options: { onModelRequest?: FakeOpenAiOptions["onRequest"] } = {}): SkiffStarter {
	let last: SkiffProcess | undefined;
	const starter: SkiffStarter = {
		model: undefined as unknown as FakeOpenAiServer,
		agentDir: "",
		cwd: "",
		newAgentDir() {
			const agentDir = tempDir();
			writeFakeModelsJson(agentDir, starter.model.url);
			return agentDir;
		},
		async start({ args = [], agentDir = starter.agentDir, cwd = starter.cwd } = {}) {
			await last?.stop();
			last = await startSkiff({ agentDir, cwd, args: ["--model", "fake/fake-model", ...args] });
			const client = await TestClient.connect(last.wsUrl);
			await client.ok({ type: "get_state" });
			return { skiff: last, client };
		},
	};
	before(async () => {
		starter.model = await startFakeOpenAi({ onRequest: options.onModelRequest });
		starter.agentDir = starter.newAgentDir();
		starter.cwd = tempDir();
	});
	after(async () => {
		await last?.stop();
		await starter.model?.close();
	});
	return starter;
}
