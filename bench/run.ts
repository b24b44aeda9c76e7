/**
 * Streaming benchmark: one 20,000-delta reply through skiff's listener to a WebSocket client, and the same
 * reply through `pi --mode rpc` over stdio (pi's own CLI from node_modules), interleaved in one run against
 * the in-repo fake model server; which side goes first alternates from one iteration to the next. Also
 * start-up time and resident memory of each process. Prints medians with min–max, skiff/pi ratios, and
 * skiff against the best peer of docs/peer-baselines.md; `--write` also updates docs/benchmarks.md.
 * With `--codex <path>` (or SKIFF_BENCH_CODEX) `codex app-server` runs as a third side (codex-side.ts), and a
 * table sets skiff beside it with the goals that only that comparison checks.
 * Usage: node --import tsx bench/run.ts [--iterations 5] [--deltas 20000] [--codex <path>] [--write]
 */
import { type ChildProcess, spawn } from "node:child_process";
import { arch, cpus, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { codexBinary, codexHome, codexTable, startCodexSide } from "./codex-side.js";
import { writeBenchSection } from "./doc-section.js";
import { measuredCommit } from "./measured-commit.js";
import { readBenchOptions } from "./options.js";
import { bestPeer, PEER_BASELINES, PEER_REPLY_DELTAS, type PeerMetric } from "./peer-baselines.js";
import { frameBytes } from "./frame-bytes.js";
import { processTreeCpuMs } from "./process-cpu.js";
import { processTreeRssMiB } from "./process-rss.js";
import { type PromptResult, promptLines, type Side } from "./side.js";
import { appendStreamingRecord, type StreamingFigures, streamingGoalsTable } from "./streaming-goals.js";
import { median, medianWithSpread } from "../stress/stats.js";
import { writeFakeModelsJson } from "../test/support/fake-openai.js";
import { startSkiff, tempDir } from "../test/support/skiff-process.js";
import { TestClient } from "../test/support/ws-client.js";

const options = readBenchOptions();
const DELTAS = options.deltas;
/** The peer comparison only makes sense for the reply length the peers were measured with. */
const COMPARE_WITH_PEERS = DELTAS === PEER_REPLY_DELTAS;
if (options.write && !COMPARE_WITH_PEERS) {
	throw new Error(`--write needs --deltas ${PEER_REPLY_DELTAS} (the reply docs/benchmarks.md and the peer baselines describe), got ${DELTAS}`);
}
/** Prompts before the measured one, so lazy module loading and JIT warm-up are not measured. */
const WARM_UP_PROMPTS = 3;
/** Idle time between "ready" and the first prompt, as in the peer baselines (idle RSS is read at its end). */
const IDLE_BEFORE_FIRST_PROMPT_MS = 2000;
/** Time after the measured reply before resident memory is read again, as in the peer baselines. */
const SETTLE_AFTER_REPLY_MS = 2000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const now = () => performance.timeOrigin + performance.now();

/** One iteration of one side: a fresh process, warm-up prompts, then the measured reply. */
interface Sample {
	/** Process spawned → first answer to `get_state`. */
	readyMs: number;
	/** Resident memory of the process tree 2 s after ready (MiB). */
	idleRssMiB: number;
	/** The first prompt after start (2 s after ready): prompt → first text delta, minus the fake's first-chunk time. */
	firstPromptMs: number;
	/** The measured prompt: prompt → first text delta at the client, minus the fake's request → first chunk time. */
	firstDeltaMs: number;
	/** The measured prompt: prompt sent → end-of-run event at the client. */
	totalMs: number;
	deltas: number;
	bytes: number;
	/** Bytes on the socket, WebSocket frame headers included (skiff; pi's and codex's stdio lines have none). */
	wireBytes: number;
	/** Resident memory of the process tree when the client receives the measured reply's end-of-run event (MiB). */
	endRssMiB: number;
	/** Resident memory 2 s after that (MiB). */
	settledRssMiB: number;
	/** CPU time of the process tree from the measured prompt to the client's end of it (ms). */
	cpuMs: number;
}

interface RequestTiming {
	receivedAt: number;
	firstChunkAt?: number;
	lastByteAt?: number;
}

/** The fake model server, in a child process (see stress/fake-model-process.ts). */
interface FakeModel {
	url: string;
	/** Resolves with the timing of request number `index` once it has been answered. */
	timing(index: number): Promise<RequestTiming>;
	close(): void;
}

async function startFakeModel(): Promise<FakeModel> {
	const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(new URL("../stress/fake-model-process.ts", import.meta.url))], {
		stdio: ["pipe", "pipe", "inherit"],
	});
	const lines = createInterface({ input: child.stdout });
	const requests: RequestTiming[] = [];
	let wake: (() => void) | undefined;
	const url = await new Promise<string>((resolve) => {
		lines.on("line", (line) => {
			const value = JSON.parse(line);
			if (value.url) resolve(value.url);
			else {
				requests.push(value);
				wake?.();
			}
		});
	});
	return {
		url,
		timing: async (index) => {
			while (requests.length <= index) await new Promise<void>((resolve) => (wake = resolve));
			return requests[index]!;
		},
		close: () => child.kill("SIGTERM"),
	};
}

/** Model requests issued so far: every benchmark prompt makes exactly one (no tool calls). */
let requestsIssued = 0;

function exited(child: ChildProcess): Promise<void> {
	return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once("exit", () => resolve()));
}

/** skiff: a WebSocket client following the primary session. Resolves once `get_state` is answered. */
async function startSkiffSide(agentDir: string): Promise<Side> {
	const skiff = await startSkiff({ agentDir, cwd: tempDir(), args: ["--model", "fake/fake-model"] });
	const pid = skiff.child.pid!;
	let client: TestClient;
	try {
		client = await TestClient.connect(skiff.wsUrl);
		await client.ok({ type: "get_state" });
	} catch (error) {
		await skiff.stop();
		throw error;
	}
	const prompt = async (message: string): Promise<PromptResult> => {
		const frameStart = client.frames.length;
		const eventStart = client.events.length;
		const requestIndex = requestsIssued++;
		let firstDeltaAt = 0;
		let deltas = 0;
		const done = new Promise<{ endedAt: number; endRssMiB: number }>((resolve) => {
			client.socket.on("message", function onFrame(data) {
				const text = data.toString();
				if (text.includes('"text_delta"')) {
					deltas++;
					if (!firstDeltaAt) firstDeltaAt = now();
				} else if (text.startsWith('{"type":"agent_end"')) {
					const endedAt = now();
					client.socket.off("message", onFrame);
					resolve({ endedAt, endRssMiB: processTreeRssMiB(pid) });
				}
			});
		});
		const sentAt = now();
		client.socket.send(JSON.stringify({ type: "prompt", id: `bench-${sentAt}`, message }));
		const { endedAt, endRssMiB } = await done;
		const bytes = client.frames.slice(frameStart).reduce((sum, f) => sum + Buffer.byteLength(f), 0);
		const wireBytes = client.frames.slice(frameStart).reduce((sum, f) => sum + frameBytes(Buffer.byteLength(f)), 0);
		// The client gets fewer delta events than the model sent deltas, with the same text: the service merges
		// the deltas that reach it within one turn of its event loop before numbering them (for every follower),
		// and a client that falls behind (a loaded machine starves the benchmark's own process) gets the ones
		// waiting for it merged too. Every delta of BENCH is one character, so the text counts the model's deltas,
		// and bytes per delta are per model delta either way.
		const textDeltas = textDeltaChars(client.events.slice(eventStart));
		client.events.splice(eventStart);
		client.frames.splice(frameStart);
		return { sentAt, firstDeltaAt, endedAt, deltas: textDeltas, bytes, wireBytes, endRssMiB, requestIndex };
	};
	return {
		pid,
		prompt,
		stop: async () => {
			client.close();
			await skiff.stop();
		},
	};
}

/** Characters of the text deltas among `events` (a merged delta holds several). */
function textDeltaChars(events: Array<{ type?: string; assistantMessageEvent?: { type?: string; delta?: string } }>): number {
	let chars = 0;
	for (const e of events) if (e.type === "message_update" && e.assistantMessageEvent?.type === "text_delta") chars += e.assistantMessageEvent.delta?.length ?? 0;
	return chars;
}

/** pi: `pi --mode rpc`, JSONL over stdio. Resolves once the `get_state` sent at spawn is answered. */
async function startPiSide(agentDir: string): Promise<Side> {
	const cli = fileURLToPath(new URL("../node_modules/@mariozechner/pi-coding-agent/dist/cli.js", import.meta.url));
	const child = spawn(process.execPath, [cli, "--mode", "rpc", "--provider", "fake", "--model", "fake-model", "--no-session"], {
		cwd: tempDir(),
		env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1" },
		stdio: ["pipe", "pipe", "ignore"],
	});
	const pid = child.pid!;
	let lineListener: ((line: string, bytes: number) => void) | undefined;
	child.stdout.setEncoding("utf8");
	const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
	lines.on("line", (line) => lineListener?.(line, Buffer.byteLength(line) + 1));
	// An exit before stop() fails the benchmark instead of leaving it waiting for lines that never come.
	const died = new Promise<never>((_, reject) => child.once("exit", (code, signal) => reject(new Error(`pi --mode rpc exited (${signal ?? `code ${code}`})`))));
	died.catch(() => undefined);
	const ready = new Promise<void>((resolve) => {
		lineListener = (line) => {
			if (line.includes('"command":"get_state"')) {
				lineListener = undefined;
				resolve();
			}
		};
		child.stdin.write(`${JSON.stringify({ type: "get_state", id: "ready" })}\n`);
	});
	await Promise.race([ready, died]);
	const prompt = (message: string) => {
		const result = new Promise<PromptResult>((resolve) => {
			const requestIndex = requestsIssued++;
			const sentAt = now();
			lineListener = promptLines({
				pid,
				requestIndex,
				sentAt,
				now,
				isDelta: (line) => line.includes('"text_delta"') && line.startsWith('{"type":"message_update"'),
				isEnd: (line) => line.startsWith('{"type":"agent_end"'),
				done: (reply) => {
					lineListener = undefined;
					resolve(reply);
				},
			});
			child.stdin.write(`${JSON.stringify({ type: "prompt", id: `bench-${sentAt}`, message })}\n`);
		});
		return Promise.race([result, died]);
	};
	return {
		pid,
		prompt,
		stop: async () => {
			child.kill("SIGTERM");
			await exited(child);
		},
	};
}

/** One iteration of one side: start, idle, warm-up prompts, the measured reply, settle, stop. */
async function measure(model: FakeModel, start: () => Promise<Side>): Promise<Sample> {
	const spawnedAt = now();
	const side = await start();
	const readyMs = (side.readyAt ?? now()) - spawnedAt;
	/** prompt → first delta, minus the fake's own request → first chunk time. */
	const firstDeltaMs = async (result: PromptResult) => {
		const t = await model.timing(result.requestIndex);
		return result.firstDeltaAt - result.sentAt - ((t.firstChunkAt ?? t.receivedAt) - t.receivedAt);
	};
	try {
		await sleep(IDLE_BEFORE_FIRST_PROMPT_MS);
		const idleRssMiB = processTreeRssMiB(side.pid);
		const first = await side.prompt("REPLY warm up");
		for (let i = 1; i < WARM_UP_PROMPTS; i++) await side.prompt("REPLY warm up");
		const cpuBefore = processTreeCpuMs(side.pid);
		const run = await side.prompt(`BENCH ${DELTAS}`);
		const cpuMs = processTreeCpuMs(side.pid) - cpuBefore;
		await sleep(SETTLE_AFTER_REPLY_MS);
		const settledRssMiB = processTreeRssMiB(side.pid);
		return {
			readyMs,
			idleRssMiB,
			firstPromptMs: await firstDeltaMs(first),
			firstDeltaMs: await firstDeltaMs(run),
			totalMs: run.endedAt - run.sentAt,
			deltas: run.deltas,
			bytes: run.bytes,
			wireBytes: run.wireBytes ?? run.bytes,
			endRssMiB: run.endRssMiB,
			settledRssMiB,
			cpuMs,
		};
	} finally {
		await side.stop();
	}
}

/** A row of the tables: how to read it off a sample, and its decimals. */
interface Metric {
	/** The peer baselines' key, when they have the figure. */
	key: PeerMetric | "cpuMs" | "wireBytesPerDelta";
	label: string;
	digits: number;
	value(sample: Sample): number;
}

const METRICS: Metric[] = [
	{ key: "readyMs", label: "cold start: spawn → first answer to get_state (ms)", digits: 0, value: (s) => s.readyMs },
	{ key: "idleRssMiB", label: "idle RSS, 2 s after ready (MiB)", digits: 1, value: (s) => s.idleRssMiB },
	{ key: "firstPromptMs", label: "first prompt after start (2 s after ready) → first text delta (ms)", digits: 1, value: (s) => s.firstPromptMs },
	{ key: "firstDeltaMs", label: "warm prompt (the measured one) → first text delta (ms)", digits: 1, value: (s) => s.firstDeltaMs },
	{ key: "totalMs", label: `${DELTAS.toLocaleString("en")}-delta reply: prompt → end of run (ms)`, digits: 0, value: (s) => s.totalMs },
	{ key: "deltasPerSecond", label: "model text deltas per second at the client (one character each; skiff merges those of one turn)", digits: 0, value: (s) => s.deltas / (s.totalMs / 1000) },
	{ key: "bytesPerDelta", label: "bytes on the wire per delta (B)", digits: 1, value: (s) => s.bytes / s.deltas },
	{ key: "wireBytesPerDelta", label: "bytes on the socket per delta, WebSocket frame headers included (B)", digits: 1, value: (s) => s.wireBytes / s.deltas },
	{ key: "cpuMs", label: "CPU of the process tree during that reply (ms)", digits: 0, value: (s) => s.cpuMs },
	{ key: "endRssMiB", label: "RSS when the client sees the end of that reply (MiB)", digits: 1, value: (s) => s.endRssMiB },
	{ key: "settledRssMiB", label: "RSS 2 s after that reply (MiB)", digits: 1, value: (s) => s.settledRssMiB },
];

/** skiff against pi, both measured in this run. */
function streamingTable(skiff: Sample[], pi: Sample[]): string {
	return [
		`Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} × ${cpus()[0]?.model ?? arch()}, ${Math.round(totalmem() / 2 ** 30)} GiB, ` +
			`Node ${process.version}; ${options.iterations} iterations, ${codexBinary(options.codex) ? "the order of skiff, pi and codex rotated" : "skiff first in odd ones and pi first in even ones"}; median (min–max) over the iterations. ` +
			`Each iteration starts a fresh process per side, waits ${IDLE_BEFORE_FIRST_PROMPT_MS / 1000} s after ready, sends ${WARM_UP_PROMPTS} warm-up prompts, then the measured one.`,
		"",
		"| metric | skiff (WebSocket) | pi --mode rpc (stdio) | skiff / pi (medians) |",
		"|---|---|---|---|",
		...METRICS.map(({ label, digits, value }) => {
			const a = skiff.map(value);
			const b = pi.map(value);
			return `| ${label} | ${medianWithSpread(a, digits, "min–max")} | ${medianWithSpread(b, digits, "min–max")} | ${(median(a) / median(b)).toFixed(3)} |`;
		}),
	].join("\n");
}

/** skiff against the best peer per row of docs/peer-baselines.md (a different run and harness). */
function peersTable(skiff: Sample[]): string {
	return [
		`skiff: the run above (${options.iterations} iterations). Peers: [peer-baselines.md](peer-baselines.md), the best of the three medians per row (n = 9 each, measured 2026-11-22).`,
		"",
		"| metric | better is | best peer | skiff | skiff / best peer (medians) |",
		"|---|---|---|---|---|",
		...METRICS.filter((m): m is Metric & { key: PeerMetric } => m.key in PEER_BASELINES).map(({ key, label, digits, value }) => {
			const best = bestPeer(key);
			const samples = skiff.map(value);
			return `| ${label} | ${PEER_BASELINES[key].better} | ${best.peer}: ${best.median.toLocaleString("en")} | ${medianWithSpread(samples, digits, "min–max")} | ${(median(samples) / best.median).toFixed(2)} |`;
		}),
	].join("\n");
}

/** skiff beside codex, both measured in this run (codex-side.ts). */
function besideCodex(skiff: Sample[], codex: Sample[]): string {
	const rows = METRICS;
	const intro =
		`Measured ${new Date().toISOString().slice(0, 10)} by bench/run.ts with skiff, pi and codex in one run (${options.iterations} iterations, order rotated), on src/ as of commit ${measuredCommit()}: ` +
		"skiff's cold start is spawn → first answer to get_state, codex's spawn → answer to initialize; median (min–max) over the iterations.";
	return codexTable(rows, skiff, codex, intro, COMPARE_WITH_PEERS);
}

async function main(): Promise<void> {
	const model = await startFakeModel();
	const agentDir = tempDir("skiff-bench-");
	writeFakeModelsJson(agentDir, model.url);
	const samples = { skiff: [] as Sample[], pi: [] as Sample[], codex: [] as Sample[] };
	const starters: Partial<Record<keyof typeof samples, () => Promise<Side>>> = { skiff: () => startSkiffSide(agentDir), pi: () => startPiSide(agentDir) };
	const codex = codexBinary(options.codex);
	if (codex) {
		const home = codexHome(model.url);
		starters.codex = () => startCodexSide({ binary: codex, home, nextRequestIndex: () => requestsIssued++, now });
	}
	const names = Object.keys(starters) as Array<keyof typeof samples>;
	try {
		for (let i = 0; i < options.iterations; i++) {
			// Rotate the order, so that no side always runs right after the same other side's burst.
			const order = [...names.slice(i % names.length), ...names.slice(0, i % names.length)];
			for (const name of order) samples[name].push(await measure(model, starters[name]!));
			process.stderr.write(`iteration ${i + 1}/${options.iterations} done (${order[0]} first, then ${order.slice(1).join(", then ")})\n`);
		}
	} finally {
		model.close();
	}
	for (const [name, list] of Object.entries(samples)) {
		for (const s of list) if (s.deltas !== DELTAS) throw new Error(`${name} delivered ${s.deltas} of ${DELTAS} deltas`);
	}
	const streaming = streamingTable(samples.skiff, samples.pi);
	console.log(streaming);
	const beside = codex ? besideCodex(samples.skiff, samples.codex) : undefined;
	if (beside) console.log(`\n${beside}`);
	if (beside && options.write) writeBenchSection("codex", beside);
	const figures = (list: Sample[]): StreamingFigures[] => list.map((s) => ({ totalMs: s.totalMs, cpuMs: s.cpuMs, wireBytesPerDelta: s.wireBytes / s.deltas }));
	const goals = streamingGoalsTable(figures(samples.skiff), codex ? figures(samples.codex) : undefined);
	console.log(`\n${goals}`);
	if (!COMPARE_WITH_PEERS) {
		console.log(`\n(no comparison with the peer baselines: they were measured with ${PEER_REPLY_DELTAS.toLocaleString("en")}-delta replies)`);
		return;
	}
	const peers = peersTable(samples.skiff);
	console.log(`\n${peers}`);
	if (options.write) {
		writeBenchSection("streaming", streaming);
		writeBenchSection("streaming-goals", goals);
		appendStreamingRecord(figures(samples.skiff));
		writeBenchSection("peers", peers);
	}
}

await main();
