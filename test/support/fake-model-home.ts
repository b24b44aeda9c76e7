/** A fresh agent folder and project with the fake model configured, for tests that stop and start skiff there. */
import { writeFakeModelsJson } from "./fake-openai.js";
import { type SkiffProcess, startSkiff, tempDir } from "./skiff-process.js";

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
