/** Starts pinger-process.ts and collects its latencies. */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

export interface PingSamples {
	/** When each ping was sent, epoch ms (performance.timeOrigin + now, comparable across processes). */
	sentAt: number[];
	ms: number[];
	failures: number;
}

export interface Pinger {
	/** Stops pinging and resolves with every sample. */
	stop(): Promise<PingSamples>;
}

export async function startPinger(wsUrl: string): Promise<Pinger> {
	const script = fileURLToPath(new URL("pinger-process.ts", import.meta.url));
	const child = spawn(process.execPath, ["--import", "tsx", script, wsUrl], { stdio: ["pipe", "pipe", "inherit"] });
	const lines = createInterface({ input: child.stdout });
	const queue: string[] = [];
	let wake: (() => void) | undefined;
	lines.on("line", (line) => {
		queue.push(line);
		wake?.();
	});
	let exited = false;
	child.once("exit", () => {
		exited = true;
		wake?.();
	});
	const nextLine = async () => {
		while (queue.length === 0) {
			if (exited) throw new Error("the pinger process exited without reporting");
			await new Promise<void>((resolve) => (wake = resolve));
		}
		return queue.shift()!;
	};
	if ((await nextLine()) !== "ready") throw new Error("the pinger did not start");
	return {
		async stop() {
			child.stdin.write("stop\n");
			return JSON.parse(await nextLine()) as PingSamples;
		},
	};
}
