/**
 * Malformed-input fuzz of every command schema over /ws and /rpc (single JSON bodies and JSONL bodies):
 * the service must not crash, must answer every input (responses are counted), must echo every usable
 * `id`, must never answer with an internal error (a TypeError's words), and its memory must come back down.
 */
import { StressClient, type WireResponse } from "../client.js";
import { FuzzGenerator, type FuzzInput, type Mutation, Random, commandSpecs } from "../fuzz-inputs.js";
import { rssMiB } from "../process-stats.js";
import { fmt, type ScenarioResult } from "../result.js";
import { postRpc, rpcAgent } from "../rpc-post.js";
import { alive, startService } from "../service.js";

export interface FuzzOptions {
	inputs: number;
	seed: number;
}

const SOCKETS = 4;
/** Commands one socket keeps in flight: the service's own limit, so none is refused for being too many. */
const WINDOW = 16;
const RPC_WORKERS = 4;
const MAX_JSONL_LINES = 32;
/** Stay well under the 4 MiB /rpc body limit when packing lines. */
const MAX_JSONL_BYTES = 1024 * 1024;
/** Words of a JavaScript failure that escaped a handler; a deliberate error never says these. */
const INTERNAL_ERROR = /Cannot read propert|is not a function|is not iterable|Cannot convert|Maximum call stack|Invalid string length|out of memory|undefined \(reading/;
const CRASH_TEXT = /Uncaught|UnhandledPromiseRejection|FATAL|TypeError|RangeError|ReferenceError/;
const SETTLE_MS = 5_000;

interface Tally {
	sent: number;
	/** Answers due: one per input, except an application/json body of several lines that is JSONL. */
	due: number;
	answered: number;
	byMutation: Map<Mutation, number>;
	malformedResponses: string[];
	internalErrors: string[];
	missingIds: Set<string>;
}

function checkResponse(response: WireResponse, tally: Tally): void {
	tally.answered++;
	if (typeof response.id === "string") tally.missingIds.delete(response.id);
	const wellFormed = typeof response.command === "string" && typeof response.success === "boolean" && (response.success || typeof response.error === "string");
	if (!wellFormed && tally.malformedResponses.length < 5) tally.malformedResponses.push(JSON.stringify(response).slice(0, 200));
	if (!response.success && INTERNAL_ERROR.test(response.error ?? "") && tally.internalErrors.length < 10) {
		tally.internalErrors.push(`${response.command}: ${response.error!.slice(0, 200)}`);
	}
}

const PROGRESS_EVERY = 10_000;

function count(tally: Tally, input: FuzzInput): void {
	tally.sent++;
	tally.due++;
	if (tally.sent % PROGRESS_EVERY === 0) process.stderr.write(`  fuzz: ${tally.sent} inputs sent\n`);
	tally.byMutation.set(input.mutation, (tally.byMutation.get(input.mutation) ?? 0) + 1);
	if (input.expectId !== undefined && input.expectId !== "") tally.missingIds.add(input.expectId);
}

/** Sends `total` inputs over one socket, at most WINDOW unanswered at a time. */
async function fuzzSocket(url: string, generator: FuzzGenerator, total: number, tally: Tally, noteSession: (r: WireResponse) => void): Promise<string[]> {
	const problems: string[] = [];
	let client = await StressClient.connect(url);
	let sent = 0;
	while (sent < total) {
		let answeredHere = 0;
		let sentHere = 0;
		const done = new Promise<void>((resolve) => {
			client.onResponse = (response) => {
				answeredHere++;
				checkResponse(response, tally);
				noteSession(response);
				pump();
			};
			const pump = () => {
				while (sentHere - answeredHere < WINDOW && sent < total && client.open) {
					const input = generator.next();
					count(tally, input);
					client.sendRaw(input.text);
					sent++;
					sentHere++;
				}
				if (answeredHere === sentHere && (sent >= total || !client.open)) resolve();
			};
			void client.closed.then((closed) => {
				if (answeredHere < sentHere) problems.push(`socket closed (${closed.code} ${closed.reason}) with ${sentHere - answeredHere} inputs unanswered`);
				resolve();
			});
			pump();
		});
		await done;
		if (sent < total || !client.open) {
			if (client.open) break;
			client = await StressClient.connect(url); // the server closed it: go on with a new one
		}
	}
	client.close();
	return problems;
}

/** Sends `total` inputs over /rpc: single JSON bodies and JSONL bodies of up to 32 lines. */
async function fuzzRpc(url: string, generator: FuzzGenerator, total: number, tally: Tally): Promise<string[]> {
	const problems: string[] = [];
	const agent = rpcAgent();
	let remaining = total;
	const worker = async () => {
		while (remaining > 0) {
			const jsonl = Math.random() < 0.5;
			const inputs: FuzzInput[] = [];
			let bytes = 0;
			const lines = jsonl ? 1 + Math.floor(Math.random() * MAX_JSONL_LINES) : 1;
			while (inputs.length < lines && remaining > 0 && bytes < MAX_JSONL_BYTES) {
				const input = generator.next(jsonl);
				if (jsonl && input.text.trim() === "") continue; // a blank line is no command
				inputs.push(input);
				bytes += input.text.length;
				remaining--;
			}
			for (const input of inputs) count(tally, input);
			const body = inputs.map((i) => i.text).join("\n");
			const answer = await postRpc(url, body, jsonl ? "application/x-ndjson" : "application/json", agent);
			const responses: WireResponse[] = [];
			for (const line of answer.text.split("\n")) {
				if (!line.trim()) continue;
				try {
					responses.push(JSON.parse(line));
				} catch {
					if (problems.length < 5) problems.push(`/rpc answered ${answer.status} with a line that is not JSON: ${line.slice(0, 120)}`);
				}
			}
			for (const response of responses) checkResponse(response, tally);
			// An application/json body is one document, whatever its lines (docs/protocol.md): one answer.
			const expected = jsonl ? inputs.length : 1;
			if (responses.length !== expected && problems.length < 10) {
				problems.push(`/rpc (${jsonl ? "JSONL" : "JSON"}, HTTP ${answer.status}): ${expected} answers due, ${responses.length} came; first input ${JSON.stringify(inputs[0]!.text.slice(0, 80))}`);
			}
		}
	};
	await Promise.all(Array.from({ length: RPC_WORKERS }, worker));
	agent.destroy();
	return problems;
}

export async function fuzz(options: FuzzOptions): Promise<ScenarioResult> {
	const service = await startService();
	const failures: string[] = [];
	const tally: Tally = { sent: 0, due: 0, answered: 0, byMutation: new Map(), malformedResponses: [], internalErrors: [], missingIds: new Set() };
	try {
		const probe = await StressClient.connect(service.skiff.wsUrl);
		const primary = (await probe.ok({ type: "get_state" })).sessionId as string;
		await probe.ok({ type: "prompt", message: "REPLY warm up" });
		const sessions = new Set<string>([primary]);
		const noteSession = (response: WireResponse) => {
			const id = response.data?.sessionId;
			if (typeof id === "string" && sessions.size < 20) sessions.add(id);
		};
		await new Promise((resolve) => setTimeout(resolve, 2_000));
		const heapBefore = await service.heapMiB();
		const rssBefore = rssMiB(service.pid);
		let rssPeak = rssBefore;
		const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMiB(service.pid))), 250);

		const generator = new FuzzGenerator(new Random(options.seed), commandSpecs(), () => [...sessions]);
		const wsTotal = Math.round(options.inputs * 0.6);
		const rpcTotal = options.inputs - wsTotal;
		const perSocket = Math.ceil(wsTotal / SOCKETS);
		const started = performance.now();
		const results = await Promise.all([
			...Array.from({ length: SOCKETS }, (_, i) => fuzzSocket(service.skiff.wsUrl, generator, Math.min(perSocket, wsTotal - i * perSocket), tally, noteSession)),
			fuzzRpc(service.skiff.url, generator, rpcTotal, tally),
		]);
		const elapsedS = (performance.now() - started) / 1000;
		failures.push(...results.flat());

		// Let runs that valid prompts started finish, then measure memory at rest.
		for (const sessionId of sessions) {
			for (let i = 0; i < 100; i++) {
				const state = await probe.request({ type: "get_state", sessionId });
				if (!state.success || !state.data.isStreaming) break;
				await new Promise((resolve) => setTimeout(resolve, 100));
			}
		}
		await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
		clearInterval(sampler);
		const heapAfter = await service.heapMiB();
		const rssAfter = rssMiB(service.pid);
		const ping = await probe.request({ type: "ping" });
		probe.close();

		if (!alive(service)) failures.push(`skiff exited (${service.skiff.child.exitCode ?? service.skiff.child.signalCode})`);
		if (!ping.success) failures.push("ping failed after the fuzz");
		if (tally.answered !== tally.due) failures.push(`${fmt(tally.due)} answers due, ${fmt(tally.answered)} came`);
		if (tally.missingIds.size > 0) failures.push(`${tally.missingIds.size} usable ids never echoed (e.g. ${[...tally.missingIds].slice(0, 3).join(", ")})`);
		for (const text of tally.malformedResponses) failures.push(`malformed response: ${text}`);
		for (const text of tally.internalErrors) failures.push(`internal error answered: ${text}`);
		const crashLines = service.skiff.stderr().split("\n").filter((line) => CRASH_TEXT.test(line));
		for (const line of crashLines.slice(0, 5)) failures.push(`stderr: ${line.slice(0, 200)}`);

		const mix = [...tally.byMutation].sort((a, b) => b[1] - a[1]).map(([m, n]) => `${m} ${fmt(n)}`).join(", ");
		return {
			name: "malformed-input fuzz",
			tried: `every command of the registry (${commandSpecs().length}), valid or with one mistake (${mix}); ${SOCKETS} WebSockets with ${WINDOW} in flight each, and /rpc JSON and JSONL bodies (seed ${options.seed})`,
			count: `${fmt(tally.sent)} inputs (${fmt(wsTotal)} /ws, ${fmt(rpcTotal)} /rpc)`,
			failures,
			figure: `${fmt(tally.answered)} answers to ${fmt(tally.due)} due (one per input: a JSONL line, or an application/json body, which is one document whatever its lines); crashes: ${alive(service) ? 0 : 1}; ${fmt(tally.sent / elapsedS)} inputs/s; RSS ${fmt(rssBefore, 1)} MiB before, peak ${fmt(rssPeak, 1)}, ${fmt(rssAfter, 1)} after (idle ${SETTLE_MS / 1000} s, then a full GC); JS heap after a full GC ${fmt(heapBefore, 1)} MiB before, ${fmt(heapAfter, 1)} after`,
		};
	} finally {
		await service.stop();
	}
}
