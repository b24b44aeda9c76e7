/**
 * The fake model server in its own process (stress/fake-model-process.ts), so that streaming a long reply
 * never competes with the stress clients for this process's event loop.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

export interface FakeModelProcess {
	url: string;
	close(): void;
}

export async function startFakeModelProcess(): Promise<FakeModelProcess> {
	const script = fileURLToPath(new URL("fake-model-process.ts", import.meta.url));
	const child = spawn(process.execPath, ["--import", "tsx", script], { stdio: ["pipe", "pipe", "inherit"] });
	const lines = createInterface({ input: child.stdout });
	const url = await new Promise<string>((resolve, reject) => {
		child.once("exit", (code) => reject(new Error(`the fake model process exited (${code}) before listening`)));
		lines.on("line", (line) => {
			const value = JSON.parse(line) as { url?: string };
			if (value.url) resolve(value.url); // later lines are request timings, not needed here
		});
	});
	return { url, close: () => child.kill("SIGTERM") };
}
