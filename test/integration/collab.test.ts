/**
 * Collaboration end to end against the real skiff and the fake model: a host on /ws and a guest (the page's
 * connection module, on Node's WebCrypto and `ws`) follow one streaming run; the guest prompts; links follow
 * --listen-advertised-origin; every collab response and event fits its schema. And where links cannot be made:
 * a wildcard bind without an origin, and `--mode rpc`.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Compile } from "typebox/compile";
import WebSocket from "ws";
import type { SkiffEvent } from "../../src/client/index.js";
import { createEventRegistry, createSchemaRegistry } from "../../src/contract.js";
import { GuestConnection, type GuestSnapshot, type GuestSocketConstructor } from "../../web/src/collab/guest-connection.js";
import { parseGuestLink } from "../../web/src/collab/guest-link.js";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { startRpcProcess } from "../support/rpc-process.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { type Event, TestClient } from "../support/ws-client.js";

const ADVERTISED = "https://skiff.example";
const commandSchemas = new Map(createSchemaRegistry().list().map((c) => [c.name, Compile(c.result)]));
const eventSchema = Compile(createEventRegistry().get("collab_updated")!.schema);

let model: FakeOpenAiServer;
let skiff: SkiffProcess;
let host: TestClient;
let cwd: string;
let agentDir: string;

before(async () => {
	model = await startFakeOpenAi();
	agentDir = tempDir();
	cwd = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	skiff = await startSkiff({ agentDir, cwd, args: ["--model", "fake/fake-model", "--listen-advertised-origin", ADVERTISED] });
	host = await TestClient.connect(skiff.wsUrl);
});

after(async () => {
	host?.close();
	await skiff?.stop();
	await model?.close();
});

/** An agent directory with the fake model, for a second service: one agent directory serves one skiff at a time. */
function ownAgentDir(): string {
	const dir = tempDir();
	writeFakeModelsJson(dir, model.url);
	return dir;
}

/** A command's data, checked against its result schema. */
async function ok(command: Record<string, unknown>): Promise<any> {
	const data = await host.ok(command);
	assert.ok(commandSchemas.get(String(command.type))!.Check(data), `${String(command.type)} result fits its schema`);
	return data;
}

/** The page's guest for a link whose origin is the advertised one (nothing answers there): the same path on skiff. */
function guestOf(link: string) {
	const local = link.replace(ADVERTISED, skiff.url);
	const parsed = parseGuestLink(local);
	assert.ok(parsed.ok);
	const guest = new GuestConnection(parsed.link, { WebSocket: WebSocket as unknown as GuestSocketConstructor });
	const snapshots: GuestSnapshot[] = [];
	const events: SkiffEvent[] = [];
	const waiters = new Set<() => void>();
	const wake = () => [...waiters].forEach((check) => check());
	guest.onState(wake);
	guest.onSnapshot((s) => (snapshots.push(s), wake()));
	guest.onEvent((e) => (events.push(e), wake()));
	const until = <T>(probe: () => T | undefined, what: string) =>
		new Promise<T>((resolve, reject) => {
			const check = () => {
				const value = probe();
				if (value === undefined) return;
				waiters.delete(check);
				clearTimeout(guard);
				resolve(value);
			};
			const guard = setTimeout(() => reject(new Error(`guest: timed out waiting for ${what} (${JSON.stringify(guest.state)})`)), 20_000);
			waiters.add(check);
			check();
		});
	return { guest, snapshots, events, until };
}

/** The reply's text from its deltas (a guest gets the end held back while it streamed with text_end). */
const replyText = (events: Array<{ type: string; [key: string]: any }>, from: number) =>
	events
		.filter((e) => e.type === "message_update" && e.seq > from && /^text_(delta|end)$/.test(e.assistantMessageEvent.type))
		.map((e) => e.assistantMessageEvent.delta ?? "")
		.join("");

test("a host and a guest follow one streaming run; the guest prompts; paths reach the guest shortened", async () => {
	const room = await ok({ type: "collab_start" });
	assert.ok(room.controlLink.startsWith(`${ADVERTISED}/collab/ws/${room.roomId}#c=`), "links follow --listen-advertised-origin");
	const { guest, snapshots, events, until } = guestOf(room.controlLink);
	guest.start();
	await until(() => (guest.state.status === "connected" ? true : undefined), "connected");
	const update = await host.waitForEvent((e) => e.type === "collab_updated" && e.controlGuests === 1);
	assert.ok(eventSchema.Check(update), "collab_updated fits its schema");
	const status = await ok({ type: "collab_status" });
	assert.equal(status.rooms[0].controlGuests, 1);

	const snapshotSeq = snapshots[0]!.seq;
	const from = host.events.length;
	await host.ok({ type: "prompt", message: `REPLY the file ${cwd}/notes.txt is ready for you\nSLOW 5` });
	const hostEnd = await host.waitForEvent((e) => e.type === "agent_end", 20_000, from);
	const guestEnd = await until(() => events.find((e) => e.type === "agent_end" && e.seq === hostEnd.seq), "the guest's agent_end");
	const hostEvents = host.events.slice(from) as Event[];
	assert.match(replyText(hostEvents, snapshotSeq), new RegExp(`${cwd}/notes\\.txt`));
	assert.equal(replyText(events as any, snapshotSeq), replyText(hostEvents, snapshotSeq).replaceAll(`${cwd}/`, ""), "every character, paths shortened");
	const guestSeqs = events.map((e) => e.seq);
	assert.deepEqual(guestSeqs, [...guestSeqs].sort((a, b) => a - b), "in seq order");
	assert.ok(guestEnd.seq > snapshotSeq);
	const guestTypes = new Set(events.map((e) => e.type));
	for (const hidden of ["tree_changed", "session_stats", "collab_updated"]) assert.ok(!guestTypes.has(hidden as never), `${hidden} is the host's`);
	assert.ok(!JSON.stringify(events).includes(cwd), "no absolute path of the session reaches the guest");

	const fromGuest = host.events.length;
	assert.equal((await guest.prompt("REPLY answered for the guest")).success, true);
	const userMessage = await host.waitForEvent((e) => e.type === "message_end" && e.message.role === "user", 20_000, fromGuest);
	assert.equal(userMessage.message.content.map?.((c: any) => c.text).join("") ?? userMessage.message.content, "REPLY answered for the guest");
	await host.waitForEvent((e) => e.type === "agent_end", 20_000, fromGuest);
	await until(() => events.find((e) => e.type === "message_end" && e.message.role === "assistant" && JSON.stringify(e.message).includes("answered for the guest")), "the reply to the guest");

	const stopped = await ok({ type: "collab_stop", roomId: room.roomId });
	assert.equal(stopped.closedGuests, 1);
	await until(() => (guest.state.status === "ended" ? true : undefined), "ended");
	assert.ok(eventSchema.Check(await host.waitForEvent((e) => e.type === "collab_updated" && e.stopped === true)));
	assert.equal((await host.ok({ type: "get_state" })).isStreaming, false, "the host's session is idle and answers");
});

test("a guest joining mid-run gets the partial reply in its snapshot, then follows the run to its end", async () => {
	const room = await ok({ type: "collab_start" });
	const from = host.events.length;
	// A slow reply (10 s in all) that the host stops once the guest has followed part of it.
	await host.ok({ type: "prompt", message: `REPLY ${"word ".repeat(40)}\nSLOW 250` });
	await host.waitForEvent((e) => e.type === "message_update", 20_000, from);
	const { guest, snapshots, events, until } = guestOf(room.viewLink);
	guest.start();
	await until(() => (snapshots.length > 0 ? true : undefined), "snapshot");
	const snapshot = snapshots[0]!;
	assert.equal(snapshot.session.isStreaming, true);
	assert.equal(snapshot.streaming?.role, "assistant");
	await until(() => events.find((e) => e.type === "message_update"), "a delta after the snapshot");
	assert.equal((await guest.abort()).code, "forbidden", "a view guest cannot stop the run");
	await host.ok({ type: "abort" });
	const hostEnd = await host.waitForEvent((e) => e.type === "message_end" && e.message.role === "assistant", 20_000, from);
	const end = await until(() => events.find((e) => e.type === "message_end" && e.message.role === "assistant"), "message_end");
	assert.equal(end.seq, hostEnd.seq);
	assert.deepEqual(
		(end as any).message.content.filter((c: any) => c.type === "text"),
		hostEnd.message.content.filter((c: any) => c.type === "text"),
		"the guest ends with the host's text",
	);
	await host.waitForEvent((e) => e.type === "agent_end", 20_000, from);
	guest.leave();
	await ok({ type: "collab_stop", roomId: room.roomId });
});

test("a wildcard bind needs an origin for links: the error names the flag; baseUrl gives one", async () => {
	const wildcard = await startSkiff({ agentDir: ownAgentDir(), cwd: tempDir(), listen: "0.0.0.0:0", args: ["--model", "fake/fake-model", "--listen-allow-insecure-remote"] });
	try {
		const client = await TestClient.connect(`ws://127.0.0.1:${new URL(wildcard.url).port}/ws`);
		const refused = await client.request({ type: "collab_start" });
		assert.equal(refused.code, "unavailable");
		assert.match(refused.error!, /--listen-advertised-origin/);
		const room = await client.ok({ type: "collab_start", baseUrl: "http://192.168.1.20:8787" });
		assert.ok(room.viewLink.startsWith(`http://192.168.1.20:8787/collab/ws/${room.roomId}#v=`));
		client.close();
	} finally {
		await wildcard.stop();
	}
});

test("--mode rpc has no listener: the collab commands say so", async () => {
	const rpc = startRpcProcess({ agentDir: ownAgentDir(), cwd: tempDir(), args: ["--model", "fake/fake-model"] });
	try {
		for (const type of ["collab_start", "collab_status"]) {
			const response = await rpc.request({ type });
			assert.deepEqual([response.success, response.code, response.error], [false, "unavailable", "Collaboration needs the listener: start skiff with --listen"]);
		}
	} finally {
		rpc.child.stdin.end();
		await rpc.exited;
	}
});
