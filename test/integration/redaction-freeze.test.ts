/**
 * Text built to make the redactor slow does not hold the service: the "-eyJAAAAAAAA" run (19 s for
 * 300 KB before) in a 150 KB prompt that a collaboration guest follows, in a 300 KB message that peek_main
 * reads, and in a 300 KB memory entry learned; meanwhile another client's `ping` is answered within 100 ms, and
 * what is shown is still redacted. The run is one word far longer than what is shown and the margin looked
 * at past it (src/shared/redact-kept.ts), so where text is cut it is left out whole.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { CUT_MARKER } from "../../src/collab/public-view.js";
import { projectStorePath } from "../../src/features/memory/local-store.js";
import { REDACTED } from "../../src/shared/redact.js";
import { RawGuest } from "../support/collab-guest.js";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { type Event, TestClient } from "../support/ws-client.js";

const KEY = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz";
/** The example: each `eyJ` of one base64url run started a scan to the run's end. */
const adversarial = (chars: number) => "-eyJAAAAAAAA".repeat(Math.ceil(chars / 12)).slice(0, chars);

let model: FakeOpenAiServer;
let skiff: SkiffProcess;
let host: TestClient;
let bystander: TestClient;
let agentDir: string;
let cwd: string;

before(async () => {
	model = await startFakeOpenAi();
	agentDir = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	cwd = tempDir();
	skiff = await startSkiff({ agentDir, cwd, args: ["--model", "fake/fake-model"] });
	host = await TestClient.connect(skiff.wsUrl);
	bystander = await TestClient.connect(skiff.wsUrl);
	// The first run loads the model provider's module: not what is measured here.
	await host.turn(await host.newSession(), "REPLY ready");
});

after(async () => {
	host?.close();
	bystander?.close();
	await skiff?.stop();
	await model?.close();
});

/**
 * Pings from the bystander back to back until `work` settles, and asserts each was answered within 100 ms:
 * with one ping always in flight, a held event loop holds one of them as long.
 */
async function pingsStayFastWhile<T>(what: string, work: Promise<T>): Promise<T> {
	let settled = false;
	const done = work.finally(() => (settled = true));
	const pings: number[] = [];
	while (!settled) {
		const sent = performance.now();
		assert.equal((await bystander.request({ type: "ping" }, 120_000)).success, true);
		pings.push(performance.now() - sent);
	}
	const value = await done;
	const slowest = Math.max(...pings);
	assert.ok(slowest < 100, `${what}: slowest of ${pings.length} pings ${slowest.toFixed(1)} ms`);
	return value;
}

const runEnd = (client: TestClient, sessionId: string, from: number) =>
	client.waitForEvent((e) => e.type === "agent_end" && e.sessionId === sessionId, 120_000, from);

test("a 150 KB adversarial prompt with a collaboration guest following: ping within 100 ms, the guest's view redacted and cut", async () => {
	const sessionId = await host.newSession();
	const room = await host.ok({ type: "collab_start", sessionId });
	const guest = await RawGuest.join(room.viewLink);
	try {
		const from = guest.messages.length;
		const prompt = `key ${KEY} ${adversarial(150 * 1024)}`;
		const seen = guest.waitFor(
			() => guest.messages.slice(from).find((m) => m.type === "agent_end"),
			"the guest to see the run end",
			120_000,
		);
		await pingsStayFastWhile("the guest following", (async () => {
			await host.ok({ type: "prompt", sessionId, message: prompt }, 120_000);
			return seen;
		})());
		const userEnd = guest.messages.slice(from).find((m) => m.type === "message_end" && m.message.role === "user");
		const text: string = userEnd!.message.content[0].text;
		assert.equal(text, `key ${REDACTED} ${CUT_MARKER}`);
		assert.ok(!JSON.stringify(guest.messages.slice(from)).includes("sk-ant"));
	} finally {
		guest.close();
	}
});

test("peek_main over a 300 KB message: ping within 100 ms, the message redacted and cut", async () => {
	const sessionId = await host.newSession();
	await host.ok({ type: "side_chat_new", sessionId, name: "peek" });
	await host.turn(sessionId, `see ${KEY} ${adversarial(300 * 1024)}`, 120_000);
	const from = host.events.length;
	const isSide = (e: Event, type: string) => e.type === "side_chat_event" && e.sessionId === sessionId && e.name === "peek" && e.event.type === type;
	await pingsStayFastWhile("peek_main", (async () => {
		await host.ok({ type: "side_chat_prompt", sessionId, name: "peek", message: "CALL peek_main {}\nAFTER_TOOL peeked." });
		return host.waitForEvent((e) => isSide(e, "agent_end"), 120_000, from);
	})());
	const end = host.events.slice(from).find((e) => isSide(e, "tool_execution_end"))!.event;
	const text: string = end.result.content[0].text;
	assert.equal(end.isError, false);
	assert.ok(text.includes(`[user]\nsee ${REDACTED} … [cut]`), text.slice(0, 400));
	assert.ok(!text.includes("sk-ant"));
});

test("a 300 KB adversarial memory learn: ping within 100 ms, the entry stored redacted", async () => {
	const sessionId = await host.newSession();
	const content = `token=${KEY} ${adversarial(300 * 1024)}`;
	const from = host.events.length;
	await pingsStayFastWhile("memory learn", (async () => {
		await host.ok({ type: "prompt", sessionId, message: `CALL memory ${JSON.stringify({ op: "learn", content })}\nAFTER_TOOL learned.` });
		return runEnd(host, sessionId, from);
	})());
	const end = host.events.slice(from).find((e) => e.type === "tool_execution_end")!;
	assert.equal(end.isError, false, JSON.stringify(end.result).slice(0, 200));
	const { entries } = await host.ok({ type: "memory_entries", sessionId });
	assert.equal(entries.length, 1);
	assert.deepEqual([entries[0].content, entries[0].truncated], [`token=${REDACTED} `, true]);
	// Stored whole, redacted whole.
	const stored = JSON.parse(readFileSync(projectStorePath(agentDir, cwd), "utf8").trim()).content as string;
	assert.equal(stored, content.replace(KEY, REDACTED));
});
