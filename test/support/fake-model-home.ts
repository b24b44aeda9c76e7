/** A fresh agent folder and project with the fake model configured, for tests that stop and start skiff there. */
import { after, before } from "node:test";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "./fake-openai.js";
import { type SkiffProcess, startSkiff, tempDir } from "./skiff-process.js";
import { TestClient } from "./ws-client.js";

export interface FakeModelHome {
	agentDir: string;
	cwd: string;
	/** Starts skiff on this home with the fake model, and `args` (e.g. `--continue` after a restart). */
	start(...args: string[]): Promise<SkiffProcess>;
}

export function fakeModelHome(modelUrl: string): FakeModelHome {
	const agentDir = tempDir();
	const cwd = tempDir();
	writeFakeModelsJson(agentDir, modelUrl);
	return { agentDir, cwd, start: (...args) => startSkiff({ agentDir, cwd, args: ["--model", "fake/fake-model", ...args] }) };
}

/** What {@link useFakeModelSkiff} starts for a test file (set once its `before` ran). */
export interface FakeModelSkiff {
	model: FakeOpenAiServer;
	home: FakeModelHome;
	skiff: SkiffProcess;
	/** Connected to the skiff. */
	client: TestClient;
	/**
	 * Resolves once all of the above are set: a file's own top-level `before` may run while this one's still
	 * awaits (Node 20 does not wait for one top-level hook before it starts the next), so one that reads them
	 * awaits this first.
	 */
	ready: Promise<void>;
}

/**
 * For a test file: the fake model and a skiff on a fresh home with it, with a client connected, started before
 * its tests and stopped after them.
 */
export function useFakeModelSkiff(): FakeModelSkiff {
	let started!: () => void;
	const service = { ready: new Promise<void>((resolve) => (started = resolve)) } as FakeModelSkiff;
	before(async () => {
		service.model = await startFakeOpenAi();
		service.home = fakeModelHome(service.model.url);
		service.skiff = await service.home.start();
		service.client = await TestClient.connect(service.skiff.wsUrl);
		started();
	});
	after(async () => {
		service.client?.close();
		await service.skiff?.stop();
		await service.model?.close();
	});
	return service;
}
