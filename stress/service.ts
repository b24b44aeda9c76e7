/** Starts skiff against the out-of-process fake model, in fresh temporary folders, for one scenario. */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeFakeModelsJson } from "../test/support/fake-openai.js";
import { type SkiffProcess, startSkiff, tempDir } from "../test/support/skiff-process.js";
import { type FakeModelProcess, startFakeModelProcess } from "./fake-model.js";
import { heapAfterGcMiB, inspectorUrl } from "./heap.js";

export interface StressService {
	skiff: SkiffProcess;
	model: FakeModelProcess;
	agentDir: string;
	cwd: string;
	pid: number;
	/** Used JavaScript heap after a full garbage collection, MiB (via the inspector). */
	heapMiB(): Promise<number>;
	/** Starts skiff again on the same folders (after a stop or a kill). */
	restart(args?: string[]): Promise<SkiffProcess>;
	/** Stops skiff and the fake model and removes the temporary folders. */
	stop(): Promise<void>;
}

export interface ServiceOptions {
	/** Extra skiff arguments (the model is always fake/fake-model). */
	args?: string[];
	/**
	 * The fake model's context window in tokens (default 32,000). A long session on the default window is
	 * compacted automatically, and a compacted session no longer shows its early messages in get_messages.
	 */
	contextWindow?: number;
}

export async function startService(options: ServiceOptions = {}): Promise<StressService> {
	const model = await startFakeModelProcess();
	const agentDir = tempDir("skiff-stress-");
	const cwd = tempDir("skiff-stress-cwd-");
	writeFakeModelsJson(agentDir, model.url);
	if (options.contextWindow !== undefined) {
		const path = join(agentDir, "models.json");
		writeFileSync(path, readFileSync(path, "utf8").replaceAll('"contextWindow": 32000', `"contextWindow": ${options.contextWindow}`));
	}
	const launch = async (args: string[]) => {
		// The inspector (loopback, a free port) lets the run force a garbage collection before reading the heap.
		const skiff = await startSkiff({ agentDir, cwd, args: ["--model", "fake/fake-model", ...args], env: { NODE_OPTIONS: "--inspect=127.0.0.1:0" } });
		await skiff.ready;
		return skiff;
	};
	const service: StressService = {
		skiff: await launch(options.args ?? []),
		model,
		agentDir,
		cwd,
		get pid() {
			return service.skiff.child.pid!;
		},
		async heapMiB() {
			const url = inspectorUrl(service.skiff.stderr());
			if (!url) throw new Error("skiff's inspector address is not on its stderr");
			return heapAfterGcMiB(url);
		},
		async restart(args = options.args ?? []) {
			if (service.skiff.child.exitCode === null && service.skiff.child.signalCode === null) await service.skiff.stop();
			service.skiff = await launch(args);
			return service.skiff;
		},
		async stop() {
			if (service.skiff.child.exitCode === null && service.skiff.child.signalCode === null) await service.skiff.stop("SIGTERM");
			model.close();
			for (const dir of [agentDir, cwd]) rmSync(dir, { recursive: true, force: true });
		},
	};
	return service;
}

/** Whether the skiff process is still running (no crash). */
export function alive(service: StressService): boolean {
	return service.skiff.child.exitCode === null && service.skiff.child.signalCode === null;
}
