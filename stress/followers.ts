/** Starts follower-process.ts processes holding `clients` followers of the primary session between them. */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { FollowerResult } from "./follower-process.js";

export type { FollowerResult };

export interface Followers {
	/** Resolves with every follower's result once all have the reply's end (or rejects after `limitMs`). */
	results(limitMs: number): Promise<FollowerResult[]>;
	/** Ends the processes (whatever they hold). */
	stop(): void;
}

export async function startFollowers(wsUrl: string, clients: number, processes: number): Promise<Followers> {
	const script = fileURLToPath(new URL("follower-process.ts", import.meta.url));
	const children = Array.from({ length: processes }, (_, i) => {
		const share = Math.floor(clients / processes) + (i < clients % processes ? 1 : 0);
		const child = spawn(process.execPath, ["--import", "tsx", script, wsUrl, String(share)], { stdio: ["pipe", "pipe", "inherit"] });
		const lines = createInterface({ input: child.stdout });
		const ready = new Promise<void>((resolve, reject) => {
			lines.once("line", (line) => (line === "ready" ? resolve() : reject(new Error(`follower process: ${line}`))));
			child.once("exit", (code) => reject(new Error(`a follower process exited (${code}) before it was ready`)));
		});
		const results = new Promise<FollowerResult[]>((resolve, reject) => {
			void ready.then(() => lines.once("line", (line) => resolve(JSON.parse(line))));
			child.once("exit", () => reject(new Error("a follower process exited without its results")));
		});
		results.catch(() => undefined);
		return { child, ready, results };
	});
	await Promise.all(children.map((c) => c.ready));
	const stop = () => {
		for (const { child } of children) if (child.exitCode === null) child.kill();
	};
	return {
		async results(limitMs) {
			const timer = setTimeout(() => {
				for (const { child } of children) child.stdin.write("stop\n");
			}, limitMs);
			try {
				return (await Promise.all(children.map((c) => c.results))).flat();
			} finally {
				clearTimeout(timer);
			}
		},
		stop,
	};
}
