/**
 * Streaming benchmark: one 20,000-delta reply through skiff's listener to a WebSocket client, and the same
 * reply through `pi --mode rpc` over stdio (pi's own CLI from node_modules), interleaved in one run against
 * the in-repo fake model server. Prints medians and skiff/pi ratios; `--write` also updates
 * docs/benchmarks.md. Usage: npm run bench [-- --iterations 5 --deltas 20000 --write]
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { arch, cpus, totalmem } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { startFakeOpenAi, writeFakeModelsJson, type FakeOpenAiServer } from "../test/support/fake-openai.js";
import { startSkiff, tempDir } from "../test/support/skiff-process.js";
import { TestClient } from "../test/support/ws-client.js";

const { values } = parseArgs({
	options: { iterations: { type: "string", default: "5" }, deltas: { type: "string", default: "20000" }, write: { type: "boolean", default: false } },
});
const ITERATIONS = Number(values.iterations);
const DELTAS = Number(values.deltas);

/** One measured reply. */
interface Sample {
	/** prompt sent → first text delta at the client, minus the fake server's own request → first chunk time. */
	firstDeltaMs: number;
	/** prompt sent → end-of-run event at the client. */
	totalMs: number;
	deltas: number;
	bytes: number;
}

const now = () => performance.timeOrigin + performance.now();

/** skiff: WebSocket client, events of the session it prompted. */
async function measureSkiff(model: FakeOpenAiServer, agentDir: string): Promise<Sample[]> {
	const skiff = await startSkiff({ agentDir, cwd: tempDir(), args: ["--model", "fake/fake-model", "--no-session"] });
	const client = await TestClient.connect(skiff.wsUrl);
	await client.ok({ type: "get_state" }); // follow the primary session
	const samples: Sample[] = [];
	try {
		await runSkiffPrompt(client, model, "REPLY warm up", false);
		samples.push(await runSkiffPrompt(client, model, `BENCH ${DELTAS}`, true));
	} finally {
		client.close();
		await skiff.stop();
	}
	return samples;
}

async function runSkiffPrompt(client: TestClient, model: FakeOpenAiServer, message: string, measure: boolean): Promise<Sample> {
	const frameStart = client.frames.length;
	const eventStart = client.events.length;
	const requestCount = model.requests.length;
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
	const request = model.requests[requestCount]!;
	const fakeTtfc = (request.firstChunkAt ?? request.receivedAt) - request.receivedAt;
	void measure;
	return { firstDeltaMs: firstDeltaAt - sentAt - fakeTtfc, totalMs: endedAt - sentAt, deltas, bytes };
}

/** pi: `pi --mode rpc`, JSONL over stdio. */
async function measurePi(model: FakeOpenAiServer, agentDir: string): Promise<Sample[]> {
	const require = createRequire(import.meta.url);
	const cli = join(require.resolve("@mariozechner/pi-coding-agent").replace(/dist\/.*$/, ""), "dist", "cli.js");
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
		new Promise<Sample>((resolve) => {
			const requestCount = model.requests.length;
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
					const request = model.requests[requestCount]!;
					const fakeTtfc = (request.firstChunkAt ?? request.receivedAt) - request.receivedAt;
					resolve({ firstDeltaMs: firstDeltaAt - sentAt - fakeTtfc, totalMs: now() - sentAt, deltas, bytes });
				}
			};
			child.stdin.write(`${JSON.stringify({ type: "prompt", id: `bench-${sentAt}`, message })}\n`);
		});
	try {
		await prompt("REPLY warm up");
		samples.push(await prompt(`BENCH ${DELTAS}`));
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
	const model = await startFakeOpenAi();
	const agentDir = tempDir("skiff-bench-");
	writeFakeModelsJson(agentDir, model.url);
	const skiff: Sample[] = [];
	const pi: Sample[] = [];
	for (let i = 0; i < ITERATIONS; i++) {
		skiff.push(...(await measureSkiff(model, agentDir)));
		pi.push(...(await measurePi(model, agentDir)));
		process.stderr.write(`iteration ${i + 1}/${ITERATIONS} done\n`);
	}
	await model.close();
	for (const [name, samples] of [["skiff", skiff], ["pi", pi]] as const) {
		for (const s of samples) if (s.deltas !== DELTAS) throw new Error(`${name} delivered ${s.deltas} of ${DELTAS} deltas`);
	}
	const rows: Array<[string, (s: Sample[]) => number, number]> = [
		[`${DELTAS.toLocaleString("en")}-delta reply: prompt → end of run (ms)`, (s) => median(s.map((x) => x.totalMs)), 0],
		["text-delta events per second at the client", (s) => median(s.map((x) => x.deltas / (x.totalMs / 1000))), 0],
		["bytes on the wire per delta (B)", (s) => median(s.map((x) => x.bytes / x.deltas)), 1],
		["prompt → first text delta, minus the fake's own first-chunk time (ms)", (s) => median(s.map((x) => x.firstDeltaMs)), 1],
	];
	const table = [
		`Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} × ${cpus()[0]?.model ?? arch()}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; ` +
			`${ITERATIONS} interleaved iterations, medians. Each iteration starts a fresh process, sends a warm-up prompt, then the measured one.`,
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
	if (values.write) {
		const path = new URL("../docs/benchmarks.md", import.meta.url);
		const doc = readFileSync(path, "utf8");
		const start = "<!-- bench:streaming:start -->";
		const end = "<!-- bench:streaming:end -->";
		const i = doc.indexOf(start);
		const j = doc.indexOf(end);
		if (i < 0 || j < i) throw new Error("docs/benchmarks.md lacks the bench:streaming markers");
		writeFileSync(path, `${doc.slice(0, i + start.length)}\n${table}\n${doc.slice(j)}`);
		console.log("docs/benchmarks.md updated");
	}
}

await main();
