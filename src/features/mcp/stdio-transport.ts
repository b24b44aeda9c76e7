/**
 * The transport of a stdio MCP server, in place of the SDK's: the server runs in a process group of its own, so
 * stopping it (a restart, a settings change, skiff's shutdown) ends it and whatever it started (an `npx` wrapper's
 * node, a shell's children), and skiff's exit ends any group still running. Its output is read with memory bounded
 * (message-lines.ts); a line that is not JSON-RPC is reported and skipped; what it writes to standard error is
 * kept (the last few KiB) to explain why it stopped. Loaded with the SDK, on first use.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { signalGroup } from "../../shared/process-group.js";
import { idOfCutResponse, type LineEvent, MessageLines, textOfCutResponse } from "./message-lines.js";

/** How long a stopped server has between SIGTERM and SIGKILL (of its whole group). */
export const STOP_GRACE_MS = 2_000;
/** What is kept of its standard error for error messages. */
export const STDERR_KEPT_BYTES = 4 * 1024;
/** Lines that are not JSON-RPC reported per server start (more are counted). */
const REPORTED_GARBAGE = 3;

/** The process groups of running servers: ended when skiff exits, whatever way it exits. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;
function trackGroup(pid: number): void {
	liveGroups.add(pid);
	if (exitHookInstalled) return;
	exitHookInstalled = true;
	process.once("exit", () => {
		for (const group of liveGroups) signalGroup(group, "SIGKILL");
	});
}

export interface StdioLaunch {
	command: string;
	args: string[];
	env: Record<string, string>;
	cwd: string;
}

export interface StdioReports {
	/** Something wrong with the server's output, in a sentence (not yet masked). */
	warn(line: string): void;
}

export class ProcessGroupTransport implements Transport {
	onclose?: () => void;
	onerror?: (error: Error) => void;
	onmessage?: <T extends JSONRPCMessage>(message: T) => void;

	private child: ChildProcessWithoutNullStreams | undefined;
	private stderrTail = "";
	private garbage = 0;
	private exited: Promise<void> | undefined;
	private closed = false;
	private exitDescription: string | undefined;

	constructor(
		private readonly launch: StdioLaunch,
		private readonly reports: StdioReports,
	) {}

	/** The pid of the server (its process group's id), while it runs. */
	get pid(): number | undefined {
		return this.child?.pid;
	}

	/** The end of what it wrote to standard error. */
	get stderr(): string {
		return this.stderrTail;
	}

	/** How it ended, once it has: `exited with code 1`, `killed by SIGTERM`, `could not start: ...`. */
	get exit(): string | undefined {
		return this.exitDescription;
	}

	async start(): Promise<void> {
		const { command, args, env, cwd } = this.launch;
		// spawn does not wait for the program: a missing one is reported by the error event, asynchronously.
		const child = spawn(command, args, { env, cwd, detached: true, stdio: ["pipe", "pipe", "pipe"], windowsHide: true });
		this.child = child;
		if (child.pid !== undefined) trackGroup(child.pid);
		const lines = new MessageLines((event) => this.line(event));
		child.stdout.on("data", (chunk: Buffer) => lines.push(chunk));
		child.stderr.on("data", (chunk: Buffer) => {
			this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-STDERR_KEPT_BYTES);
		});
		child.stdin.on("error", () => undefined); // a server that exits while we write: the exit says why
		this.exited = new Promise((resolve) => {
			let done = false;
			const finish = (description: string) => {
				if (done) return;
				done = true;
				this.exitDescription = description;
				if (child.pid !== undefined) liveGroups.delete(child.pid);
				// Whatever it left running in its group goes with it.
				if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
				resolve();
				this.onclose?.();
			};
			child.once("error", (error: NodeJS.ErrnoException) => {
				const reason = error.code === "ENOENT" ? `command not found: ${command}` : error.code === "EACCES" ? `permission denied: ${command}` : error.message;
				if (child.pid === undefined) {
					this.onerror?.(new Error(`could not start: ${reason}`));
					finish(`could not start: ${reason}`);
				}
			});
			child.once("close", (code, signal) => finish(signal ? `killed by ${signal}` : `exited with code ${code}`));
		});
	}

	async send(message: JSONRPCMessage): Promise<void> {
		const stdin = this.child?.stdin;
		if (!stdin || stdin.destroyed || !stdin.writable) throw new Error("the server is not running");
		const written = await new Promise<boolean>((resolve) => {
			stdin.write(`${JSON.stringify(message)}\n`, (error) => resolve(!error));
		});
		if (written) return;
		// A write fails (EPIPE) when the server has exited: its exit, due any moment, says why better.
		let timer: NodeJS.Timeout | undefined;
		await Promise.race([this.exited, new Promise((resolve) => (timer = setTimeout(resolve, 1_000)))]);
		clearTimeout(timer);
		throw new Error("the server is not running");
	}

	/** Ends the server and its group: SIGTERM, then SIGKILL after the grace period. */
	async close(): Promise<void> {
		if (this.closed) return;
		this.closed = true;
		const child = this.child;
		if (!child || child.pid === undefined || this.exitDescription !== undefined) {
			if (this.exitDescription === undefined) this.onclose?.();
			return;
		}
		child.stdin.end();
		signalGroup(child.pid, "SIGTERM");
		const timer = setTimeout(() => signalGroup(child.pid!, "SIGKILL"), STOP_GRACE_MS);
		await this.exited;
		clearTimeout(timer);
	}

	private line(event: LineEvent): void {
		if (event.kind === "oversized") return this.cut(event.head, event.tail, event.bytes);
		let parsed: unknown;
		try {
			parsed = JSON.parse(event.text);
		} catch {
			return this.notJsonRpc(event.text);
		}
		const message = JSONRPCMessageSchema.safeParse(parsed);
		if (!message.success) return this.notJsonRpc(event.text);
		this.onmessage?.(message.data);
	}

	private notJsonRpc(text: string): void {
		this.garbage++;
		if (this.garbage <= REPORTED_GARBAGE) {
			const shown = text.length > 80 ? `${text.slice(0, 80)}…` : text;
			this.reports.warn(`wrote a line to standard output that is not JSON-RPC (ignored; logs belong on standard error): ${JSON.stringify(shown)}`);
		} else if (this.garbage === REPORTED_GARBAGE + 1) {
			this.reports.warn("keeps writing lines that are not JSON-RPC to standard output; no more are reported");
		}
	}

	/** A message over the bound: answered as a tool result holding what fit of its text, with a note. */
	private cut(head: string, tail: string, bytes: number): void {
		const id = idOfCutResponse(head, tail);
		const size = `${(bytes / 1024 / 1024).toFixed(1)} MB`;
		if (id === undefined) {
			this.reports.warn(`sent a message of ${size}, over the bound of one message, that answers no request it can be matched to (dropped)`);
			return;
		}
		this.reports.warn(`answered with a message of ${size}, over the bound of one message: only its start was read`);
		const note = `\n[… output truncated: the MCP server answered with ${size}; only its start was read]`;
		this.onmessage?.({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: textOfCutResponse(head) + note }] } } as JSONRPCMessage);
	}
}
