/** Runs `skiff --mode rpc` as a child process and talks JSON lines to it, keeping every byte of its output. */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "./skiff-process.js";

export interface RpcProcess {
	child: ChildProcessWithoutNullStreams;
	/** Writes one command line (an object is serialized; a string is written as is, then LF). */
	send(command: Record<string, unknown> | string): void;
	/** Every stdout line, parsed (a line that is not JSON fails the waiters that read it). */
	readonly lines: any[];
	stdout(): string;
	stderr(): string;
	/** Resolves with the first line (from index `from`) that matches. */
	waitFor(matches: (line: any) => boolean, from?: number): Promise<any>;
	/** Sends a command with this id and resolves with its response. */
	request(command: Record<string, unknown>): Promise<any>;
	/** Resolves with the exit code. */
	readonly exited: Promise<number | null>;
}

/** The environment without provider keys or Skiff/pi settings of the developer's shell. */
export function cleanEnv(extra: Record<string, string>): Record<string, string> {
	const env: Record<string, string> = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (value === undefined || /API_KEY|TOKEN|SECRET|^AWS_|^AZURE_|^GOOGLE_|^SKIFF_|^PI_/.test(key)) continue;
		env[key] = value;
	}
	return { ...env, ...extra };
}

export function startRpcProcess(options: { agentDir: string; cwd: string; args?: string[]; cli?: string; env?: Record<string, string> }): RpcProcess {
	const cli = options.cli ?? join(REPO_ROOT, "bin", "skiff");
	const child = spawn(process.execPath, [cli, "--mode", "rpc", ...(options.args ?? [])], {
		cwd: options.cwd,
		env: cleanEnv({ SKIFF_AGENT_DIR: options.agentDir, ...options.env }),
		stdio: ["pipe", "pipe", "pipe"],
	});
	// Writing to a process that has exited (a refused start) fails with EPIPE: its exit is what a test checks.
	child.stdin.on("error", () => undefined);
	let stdout = "";
	let stderr = "";
	let pending = "";
	const lines: any[] = [];
	const waiters = new Set<() => void>();
	let failure: Error | undefined;
	child.stdout.on("data", (chunk: Buffer) => {
		stdout += chunk.toString("utf8");
		pending += chunk.toString("utf8");
		for (let lf = pending.indexOf("\n"); lf >= 0; lf = pending.indexOf("\n")) {
			const line = pending.slice(0, lf);
			pending = pending.slice(lf + 1);
			try {
				lines.push(JSON.parse(line));
			} catch {
				failure = new Error(`stdout carried a line that is not JSON: ${line.slice(0, 200)}`);
			}
		}
		for (const wake of [...waiters]) wake();
	});
	child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
	// "close", not "exit": by then everything the process wrote has been read (a refusal on stderr, its last lines).
	const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
	let closed = false;
	exited.then(() => {
		closed = true;
		for (const wake of [...waiters]) wake();
	});
	let nextId = 1;
	const waitFor = (matches: (line: any) => boolean, from = 0) =>
		new Promise<any>((resolve, reject) => {
			const check = () => {
				if (failure) return finish(() => reject(failure));
				const hit = lines.slice(from).find(matches);
				if (hit) return finish(() => resolve(hit));
				if (closed) finish(() => reject(new Error(`skiff exited before the expected line.\nstdout: ${stdout.slice(-2000)}\nstderr: ${stderr}`)));
			};
			const finish = (settle: () => void) => {
				waiters.delete(check);
				settle();
			};
			waiters.add(check);
			check();
		});
	const send = (command: Record<string, unknown> | string) => child.stdin.write(`${typeof command === "string" ? command : JSON.stringify(command)}\n`);
	return {
		child,
		send,
		lines,
		stdout: () => stdout,
		stderr: () => stderr,
		waitFor,
		request: (command) => {
			const id = `r${nextId++}`;
			send({ ...command, id });
			return waitFor((line) => line.type === "response" && line.id === id);
		},
		exited,
	};
}
