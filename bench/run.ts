/**
 * Streaming benchmark: one 20,000-delta reply through skiff's listener to a WebSocket client, and the same
 * reply through `pi --mode rpc` over stdio (pi's own CLI from node_modules), interleaved in one run against
 * the in-repo fake model server. Prints medians and skiff/pi ratios; `--write` also updates
 * docs/benchmarks.md. Usage: npm run bench [-- --iterations 5 --deltas 20000 --write]
 */
import { spawn } from "node:child_process";
import { arch, cpus, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { writeBenchSection } from "./doc-section.js";
import { writeFakeModelsJson } from "../test/support/fake-openai.js";
import { startSkiff, tempDir } from "../test/support/skiff-process.js";
import { TestClient } from "../test/support/ws-client.js";

const { values } = parseArgs({
	options: { iterations: { type: "string", default: "5" }, deltas: { type: "string", default: "20000" }, write: { type: "boolean", default: false } },
});
const ITERATIONS = Number(values.iterations);
const DELTAS = Number(values.deltas);
/** Prompts before the measured one, so lazy module loading and JIT warm-up are not measured. */
const WARM_UP_PROMPTS = 3;
/** Idle time between "ready" and the first prompt, as in the peer baselines. */
const IDLE_BEFORE_FIRST_PROMPT_MS = 2000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One measured reply. */
interface Sample {
	/** The first prompt after start (2 s after ready, as in the peer baselines): prompt → first text delta. */
	firstPromptMs: number;
	/** prompt sent → first text delta at the client, minus the fake server's own request → first chunk time. */
	firstDeltaMs: number;
	/** prompt sent → end-of-run event at the client. */
	totalMs: number;
	deltas: number;
	bytes: number;
}

const now = () => performance.timeOrigin + performance.now();

interface RequestTiming {
	receivedAt: number;
	firstChunkAt?: number;
	lastByteAt?: number;
}

/** The fake model server, in a child process (see fake-model-process.ts). */
interface FakeModel {
	url: string;
	requests: RequestTiming[];
	/** Resolves with the timing of request number `index` once it has been answered. */
	timing(index: number): Promise<RequestTiming>;
	close(): void;
}

async function startFakeModel(): Promise<FakeModel> {
	const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(new URL("fake-model-process.ts", import.meta.url))], {
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
		requests,
		timing: async (index) => {
			while (requests.length <= index) await new Promise<void>((resolve) => (wake = resolve));
			return requests[index]!;
		},
		close: () => child.kill("SIGTERM"),
	};
}

/** Model requests issued so far: every benchmark prompt makes exactly one (no tool calls). */
let requestsIssued = 0;

/** The fake's own request → first chunk time, subtracted from time to first delta. */
async function fakeFirstChunkMs(model: FakeModel, index: number): Promise<number> {
	const t = await model.timing(index);
	return (t.firstChunkAt ?? t.receivedAt) - t.receivedAt;
}

/** skiff: WebSocket client, events of the session it prompted. */
async function measureSkiff(model: FakeModel, agentDir: string): Promise<Sample[]> {
	const skiff = await startSkiff({ agentDir, cwd: tempDir(), args: ["--model", "fake/fake-model"] });
	const client = await TestClient.connect(skiff.wsUrl);
	await client.ok({ type: "get_state" }); // follow the primary session
	const samples: Sample[] = [];
	try {
		await sleep(IDLE_BEFORE_FIRST_PROMPT_MS);
		const first = await runSkiffPrompt(client, model, "REPLY warm up");
		for (let i = 1; i < WARM_UP_PROMPTS; i++) await runSkiffPrompt(client, model, "REPLY warm up");
		samples.push({ ...(await runSkiffPrompt(client, model, `BENCH ${DELTAS}`)), firstPromptMs: first.firstDeltaMs });
	} finally {
		client.close();
		await skiff.stop();
	}
	return samples;
}

async function runSkiffPrompt(client: TestClient, model: FakeModel, message: string): Promise<Omit<Sample, "firstPromptMs">> {
	const frameStart = client.frames.length;
	const eventStart = client.events.length;
	const requestCount = requestsIssued++;
	let firstDeltaAt = 0;
	let deltas = 0;
	const done = new Promise<number>((resolve) => {
		client.socket.on("message", function onFrame(data) {
			const text = data.toString();
			if (text.includes('"text_delta"')) {
				deltas++;
				if (!firstDeltaAt) firstDeltaAt = now();
			} else if (text.startsWith('{"type":"agent_end"')) {
				client.socket.off("message", onFrame);
				resolve(now());
			}
		});
	});
	const sentAt = now();
	client.socket.send(JSON.stringify({ type: "prompt", id: `bench-${sentAt}`, message }));
	const endedAt = await done;
	const bytes = client.frames.slice(frameStart).reduce((sum, f) => sum + Buffer.byteLength(f), 0);
	client.events.splice(eventStart);
	client.frames.splice(frameStart);
	const fakeTtfc = await fakeFirstChunkMs(model, requestCount);
	return { firstDeltaMs: firstDeltaAt - sentAt - fakeTtfc, totalMs: endedAt - sentAt, deltas, bytes };
}

/** pi: `pi --mode rpc`, JSONL over stdio. */
async function measurePi(model: FakeModel, agentDir: string): Promise<Sample[]> {
	const cli = fileURLToPath(new URL("../node_modules/@mariozechner/pi-coding-agent/dist/cli.js", import.meta.url));
	const child = spawn(process.execPath, [cli, "--mode", "rpc", "--provider", "fake", "--model", "fake-model", "--no-session"], {
		cwd: tempDir(),
		env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1" },
		stdio: ["pipe", "pipe", "ignore"],
	});
	const samples: Sample[] = [];
	let lineListener: ((line: string, bytes: number) => void) | undefined;
	child.stdout.setEncoding("utf8");
	const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
	lines.on("line", (line) => lineListener?.(line, Buffer.byteLength(line) + 1));
	const prompt = (message: string) =>
		new Promise<Omit<Sample, "firstDeltaMs" | "firstPromptMs"> & { firstDeltaAt: number; sentAt: number; requestIndex: number }>((resolve) => {
			const requestCount = requestsIssued++;
			let firstDeltaAt = 0;
			let deltas = 0;
			let bytes = 0;
			const sentAt = now();
			lineListener = (line, size) => {
				bytes += size;
				if (line.includes('"text_delta"') && line.startsWith('{"type":"message_update"')) {
					deltas++;
					if (!firstDeltaAt) firstDeltaAt = now();
				} else if (line.startsWith('{"type":"agent_end"')) {
					lineListener = undefined;
					resolve({ firstDeltaAt, sentAt, requestIndex: requestCount, totalMs: now() - sentAt, deltas, bytes });
				}
			};
			child.stdin.write(`${JSON.stringify({ type: "prompt", id: `bench-${sentAt}`, message })}\n`);
		});
	const ready = () =>
		new Promise<void>((resolve) => {
			lineListener = (line) => {
				if (line.includes('"command":"get_state"')) {
					lineListener = undefined;
					resolve();
				}
			};
			child.stdin.write(`${JSON.stringify({ type: "get_state", id: "ready" })}\n`);
		});
	try {
		await ready(); // the first answer to get_state, as in the peer baselines
		await sleep(IDLE_BEFORE_FIRST_PROMPT_MS);
		const first = await prompt("REPLY warm up");
		const firstTtfc = await fakeFirstChunkMs(model, first.requestIndex);
		for (let i = 1; i < WARM_UP_PROMPTS; i++) await prompt("REPLY warm up");
		const run = await prompt(`BENCH ${DELTAS}`);
		const fakeTtfc = await fakeFirstChunkMs(model, run.requestIndex);
		samples.push({
			firstPromptMs: first.firstDeltaAt - first.sentAt - firstTtfc,
			firstDeltaMs: run.firstDeltaAt - run.sentAt - fakeTtfc,
			totalMs: run.totalMs,
			deltas: run.deltas,
			bytes: run.bytes,
		});
	} finally {
		child.kill("SIGTERM");
	}
	return samples;
}

const median = (xs: number[]) => {
	const s = [...xs].sort((a, b) => a - b);
	return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<void> {
	const model = await startFakeModel();
	const agentDir = tempDir("skiff-bench-");
	writeFakeModelsJson(agentDir, model.url);
	const skiff: Sample[] = [];
	const pi: Sample[] = [];
	for (let i = 0; i < ITERATIONS; i++) {
		skiff.push(...(await measureSkiff(model, agentDir)));
		pi.push(...(await measurePi(model, agentDir)));
		process.stderr.write(`iteration ${i + 1}/${ITERATIONS} done\n`);
	}
	model.close();
	for (const [name, samples] of [["skiff", skiff], ["pi", pi]] as const) {
		for (const s of samples) if (s.deltas !== DELTAS) throw new Error(`${name} delivered ${s.deltas} of ${DELTAS} deltas`);
	}
	const rows: Array<[string, (s: Sample[]) => number, number]> = [
		[`${DELTAS.toLocaleString("en")}-delta reply: prompt → end of run (ms)`, (s) => median(s.map((x) => x.totalMs)), 0],
		["text-delta events per second at the client", (s) => median(s.map((x) => x.deltas / (x.totalMs / 1000))), 0],
		["bytes on the wire per delta (B)", (s) => median(s.map((x) => x.bytes / x.deltas)), 1],
		["prompt → first text delta, warm, minus the fake's own first-chunk time (ms)", (s) => median(s.map((x) => x.firstDeltaMs)), 1],
		["first prompt after start (2 s after ready) → first text delta (ms)", (s) => median(s.map((x) => x.firstPromptMs)), 1],
	];
	const table = [
		`Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} × ${cpus()[0]?.model ?? arch()}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; ` +
			`${ITERATIONS} interleaved iterations, medians. Each iteration starts a fresh process, sends ${WARM_UP_PROMPTS} warm-up prompts, then the measured one.`,
		"",
		"| metric | skiff (WebSocket) | pi --mode rpc (stdio) | skiff / pi |",
		"|---|---|---|---|",
		...rows.map(([label, f, digits]) => {
			const a = f(skiff);
			const b = f(pi);
			return `| ${label} | ${a.toFixed(digits)} | ${b.toFixed(digits)} | ${(a / b).toFixed(3)} |`;
		}),
	].join("\n");
	console.log(table);
	if (values.write) writeBenchSection("streaming", table);
}

await main();
