/**
 * The collaboration relay of the real listener (in this process, over fake session commands): links,
 * admission, the hello and join, the snapshot and the live events guests may see, role enforcement, and every
 * refusal: each clean, the host's session unaffected, nothing leaked in error text.
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import { setImmediate as nextTurn } from "node:timers/promises";
import { capabilityOf } from "../../src/collab/channel.js";
import {
	CLOSE_ROOM_FULL,
	CLOSE_ROOM_STOPPED,
	MAX_GUEST_FRAME_BYTES,
	ROOM_FULL_REASON,
	ROOM_STOPPED_REASON,
} from "../../src/shared/collab-wire.js";
import { type CollabHarness, PRIMARY_SESSION, SESSION_CWD, startCollabHarness } from "../support/collab-harness.js";
import { parseLink, RawGuest } from "../support/collab-guest.js";
import { TestClient } from "../support/ws-client.js";

let harness: CollabHarness;
let host: TestClient;
const guests: RawGuest[] = [];

beforeEach(async () => {
	harness = await startCollabHarness();
	host = await TestClient.connect(harness.wsUrl);
});

afterEach(async () => {
	for (const guest of guests.splice(0)) guest.socket.terminate();
	host.socket.terminate();
	await harness.close();
});

async function join(link: string): Promise<RawGuest> {
	const guest = await RawGuest.join(link);
	guests.push(guest);
	return guest;
}

async function connect(link: string, options?: Parameters<typeof RawGuest.connect>[1]): Promise<RawGuest> {
	const guest = await RawGuest.connect(link, options);
	guests.push(guest);
	return guest;
}

/** The host's session still answers. */
async function hostStillWorks(): Promise<void> {
	assert.equal((await host.ok({ type: "ping" })).pong, true);
	assert.equal((await host.ok({ type: "get_state" })).sessionId, PRIMARY_SESSION);
}

/** Nothing secret in a text: no key, no capability, no absolute path of the fake session. */
function assertNoLeak(text: string, links: { controlLink: string; viewLink: string }): void {
	for (const link of [links.controlLink, links.viewLink]) {
		const { key } = parseLink(link);
		assert.ok(!text.includes(Buffer.from(key).toString("base64url")), "a key leaked");
		assert.ok(!text.includes(capabilityOf(key).toString("base64url")), "a capability leaked");
	}
	assert.ok(!text.includes(SESSION_CWD), "a path leaked");
}

test("collab_start returns a room's two links on this listener's origin; collab_status lists it", async () => {
	const room = await host.ok({ type: "collab_start" });
	assert.equal(room.sessionId, PRIMARY_SESSION);
	assert.match(room.roomId, /^[A-Za-z0-9_-]{22}$/);
	assert.equal(room.controlLink.split("#")[0], `${harness.url}/collab/ws/${room.roomId}`);
	assert.match(room.controlLink, /#c=[A-Za-z0-9_-]{43}$/);
	assert.match(room.viewLink, /#v=[A-Za-z0-9_-]{43}$/);
	assert.notEqual(parseLink(room.controlLink).key.toString(), parseLink(room.viewLink).key.toString());

	const status = await host.ok({ type: "collab_status" });
	assert.equal(status.rooms.length, 1);
	assert.deepEqual(
		{ ...status.rooms[0], startedAt: undefined },
		{ ...room, controlGuests: 0, viewGuests: 0, participantLimit: 8, startedAt: undefined },
	);
	const other = await host.ok({ type: "collab_start", baseUrl: "https://share.example.com:8443/", sessionId: "other-session" });
	assert.equal(other.sessionId, "other-session");
	assert.ok(other.viewLink.startsWith(`https://share.example.com:8443/collab/ws/${other.roomId}#v=`));
	assert.equal((await host.ok({ type: "collab_status", roomId: other.roomId })).rooms.length, 1);
});

test("bad collab_start, collab_status and collab_stop input is refused with a clear error", async () => {
	const bad = await host.request({ type: "collab_start", baseUrl: "https://user:pw@example.com/path" });
	assert.equal(bad.code, "invalid_command");
	assert.match(bad.error!, /^baseUrl "https:\/\/user:pw@example.com\/path" is not an origin: credentials/);
	for (const baseUrl of ["ftp://x", "http://x/?q", "http://x#f", "http://x:0", "http://[::1", "not a url"]) {
		assert.equal((await host.request({ type: "collab_start", baseUrl })).code, "invalid_command", baseUrl);
	}
	assert.equal((await host.request({ type: "collab_stop", roomId: "AAAAAAAAAAAAAAAAAAAAAA" })).code, "not_found");
	assert.equal((await host.request({ type: "collab_stop", roomId: "../../etc" })).code, "invalid_command");
	assert.equal((await host.request({ type: "collab_status", roomId: "AAAAAAAAAAAAAAAAAAAAAA" })).code, "not_found");
	assert.equal(harness.rooms.size, 0);
});

test("the room limit is enforced", async () => {
	await harness.close();
	harness = await startCollabHarness({ maxRooms: 2 });
	host = await TestClient.connect(harness.wsUrl);
	await host.ok({ type: "collab_start" });
	await host.ok({ type: "collab_start" });
	const third = await host.request({ type: "collab_start" });
	assert.equal(third.code, "limit");
	assert.match(third.error!, /Too many collaboration rooms \(limit 2\)/);
});

test("GET /collab/ws/<roomId> serves the page, allowed to connect to that room only; malformed paths are 404", async () => {
	const room = await host.ok({ type: "collab_start" });
	const path = `/collab/ws/${room.roomId}`;
	const page = await fetch(`${harness.url}${path}`);
	assert.equal(page.status, 200);
	assert.match(await page.text(), /test page/);
	const csp = page.headers.get("content-security-policy")!;
	assert.match(csp, new RegExp(`connect-src ws://127\\.0\\.0\\.1:\\d+${path} wss://127\\.0\\.0\\.1:\\d+${path};`));
	assert.ok(!csp.includes(" ws://127.0.0.1:" + harness.listener.address.port + "/ws "), "the guest page may not open /ws");
	// Any well-formed room id gets the page: whether a room exists is never told here.
	assert.equal((await fetch(`${harness.url}/collab/ws/AAAAAAAAAAAAAAAAAAAAAA`)).status, 200);
	for (const bad of ["/collab/ws/short", "/collab/ws/", "/collab/ws/AAAAAAAAAAAAAAAAAAAAAA/x", "/collab/x"]) {
		assert.equal((await fetch(`${harness.url}${bad}`)).status, 404, bad);
	}
	assert.equal((await fetch(`${harness.url}${path}`, { method: "POST" })).status, 405);
});

test("a guest gets the hello, then after joining a snapshot, then live events of that session only, as guests may see them", async () => {
	harness.transcripts.set(PRIMARY_SESSION, [
		{ role: "user", content: `look at ${SESSION_CWD}/src/main.ts`, timestamp: 1 },
		{ role: "custom", customType: "memory", content: "hidden recall", display: false, timestamp: 2 },
		{
			role: "assistant",
			content: [
				{ type: "thinking", thinking: "hmm", thinkingSignature: "sig" },
				{ type: "text", text: "key sk-abcdefghijklmnopqrstuvwx here" },
			],
			provider: "fake",
			model: "fake-model",
			usage: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 3, cost: { total: 0.5 } },
			stopReason: "stop",
			responseId: "resp_1",
			timestamp: 3,
		},
		{
			role: "toolResult",
			toolCallId: "t1",
			toolName: "read",
			content: [{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }],
			details: { fullOutputPath: "/tmp/x" },
			isError: false,
			timestamp: 4,
		},
	]);
	harness.publish(PRIMARY_SESSION, { type: "agent_start" }); // before the room: in the snapshot's seq
	const room = await host.ok({ type: "collab_start" });
	const guest = await connect(room.controlLink);
	await guest.waitFor(() => guest.hello, "hello");
	assert.deepEqual(guest.hello, {
		type: "hello",
		protocol: "skiff-collab-v1",
		roomId: room.roomId,
		role: "control",
		serverNonce: guest.hello!.serverNonce,
		maxHostFrameBytes: 1024 * 1024,
		maxGuestFrameBytes: MAX_GUEST_FRAME_BYTES,
	});
	assert.ok(guest.socket.protocol.startsWith(`skiff-collab-v1.${capabilityOf(parseLink(room.controlLink).key).toString("base64url")}.`), "the offer is echoed");
	assert.equal(guest.messages.length, 0, "nothing encrypted before the join");
	guest.send({ type: "collab_join" });
	const snapshot = await guest.waitForMessage((m) => m.type === "collab_snapshot");
	assert.equal(guest.messages[0], snapshot, "the snapshot comes first");
	assert.equal(snapshot.sessionId, PRIMARY_SESSION);
	assert.equal(snapshot.seq, 3, "agent_start, and collab_updated when the room started and when the guest joined");
	assert.equal(snapshot.omittedMessages, 0);
	assert.deepEqual(snapshot.session, {
		name: "Work in .",
		model: { provider: "fake", id: "fake-model", name: "Fake" },
		thinkingLevel: "off",
		isStreaming: false,
		isCompacting: false,
		messageCount: 4,
		pendingMessageCount: 0,
	});
	assert.deepEqual(
		snapshot.messages.map((m: any) => m.role),
		["user", "assistant", "toolResult"],
		"hidden context is left out",
	);
	assert.equal(snapshot.messages[0].content, "look at src/main.ts");
	assert.deepEqual(snapshot.messages[1].content, [
		{ type: "thinking", thinking: "hmm" },
		{ type: "text", text: "key [REDACTED] here" },
	]);
	assert.equal(snapshot.messages[1].usage, undefined);
	assert.equal(snapshot.messages[1].responseId, undefined);
	assert.deepEqual(snapshot.messages[2].content, [{ type: "text", text: "[image]" }]);
	assert.equal(snapshot.messages[2].details, undefined);

	const from = guest.messages.length;
	harness.publish("another-session", { type: "agent_start" });
	harness.publish(PRIMARY_SESSION, { type: "message_update", assistantMessageEvent: { type: "text_start", contentIndex: 0 } });
	harness.publish(PRIMARY_SESSION, { type: "message_update", assistantMessageEvent: { type: "text_delta", delta: `see ${SESSION_CWD}/a.ts ` } });
	harness.publish(PRIMARY_SESSION, { type: "recording_failed", code: "ENOSPC", error: `disk full at ${SESSION_CWD}` });
	harness.publish(PRIMARY_SESSION, { type: "tool_execution_end", toolCallId: "t", toolName: "bash", result: { content: [{ type: "text", text: "done" }], details: { x: 1 } }, isError: false });
	harness.publish(PRIMARY_SESSION, { type: "agent_end", messageCount: 2 });
	await guest.waitForMessage((m) => m.type === "agent_end", from);
	const seen = guest.messages.slice(from);
	assert.deepEqual(
		seen.map((m) => m.type),
		["message_update", "message_update", "tool_execution_end", "agent_end"],
		"no other session's events, nor the host's own (recording, rooms)",
	);
	assert.ok(seen.every((m) => m.sessionId === PRIMARY_SESSION));
	assert.equal(seen[1]!.assistantMessageEvent.delta, "see a.ts ");
	assert.equal(seen[2]!.result.details, undefined);
	assert.ok(seen[0]!.seq > snapshot.seq);

	// The host learns who joined; guests never get that event.
	const update = await host.waitForEvent((e) => e.type === "collab_updated" && e.controlGuests === 1);
	assert.deepEqual({ roomId: update.roomId, stopped: update.stopped, viewGuests: update.viewGuests }, { roomId: room.roomId, stopped: false, viewGuests: 0 });
	assert.equal((await host.ok({ type: "collab_status" })).rooms[0].controlGuests, 1);
	assertNoLeak(JSON.stringify(guest.messages), room);
});

test("a control guest prompts, steers and aborts the shared session, and nothing else", async () => {
	const room = await host.ok({ type: "collab_start", sessionId: "shared" });
	const guest = await join(room.controlLink);
	assert.deepEqual(await guest.command("prompt", { message: "hello" }), { type: "response", id: "c1", command: "prompt", success: true });
	assert.equal((await guest.command("steer", { message: "more" })).success, true);
	const aborted = await guest.command("abort");
	assert.equal(aborted.success, true);
	assert.equal(aborted.data, undefined, "responses carry no data");
	assert.deepEqual(harness.received, [
		{ type: "prompt", sessionId: "shared", message: "hello" },
		{ type: "steer", sessionId: "shared", message: "more" },
		{ type: "abort", sessionId: "shared" },
	]);

	const elsewhere = await guest.command("prompt", { message: "x", sessionId: PRIMARY_SESSION });
	assert.deepEqual([elsewhere.success, elsewhere.code, elsewhere.error], [false, "invalid_command", "Invalid command: unknown field `sessionId`"]);
	// get_image too: a guest sees an image as `[image]` (docs/collab.md), never its data, the left-out ones included.
	for (const type of ["get_state", "collab_start", "collab_stop", "bash", "follow_up", "subscribe", "get_image"]) {
		const refused = await guest.command(type);
		assert.deepEqual([refused.success, refused.code, refused.command], [false, "forbidden", type], type);
		assert.equal(refused.error, "Guests can send only prompt, steer and abort");
	}
	const empty = await guest.command("prompt", { message: "" });
	assert.equal(empty.code, "invalid_command");
	const notJson = guest.messages.length;
	guest.sendRaw(guest.channel!.seal(Buffer.from("not json")));
	const parse = await guest.waitForMessage((m) => m.type === "response", notJson);
	assert.deepEqual([parse.success, parse.code], [false, "parse_error"]);
	assert.equal(harness.received.length, 3, "nothing else reached the session");
	assert.equal(guest.closed, undefined, "refusals keep the connection");
	await hostStillWorks();
});

test("a view guest watches, and every command it sends gets an encrypted refusal", async () => {
	const room = await host.ok({ type: "collab_start" });
	const guest = await join(room.viewLink);
	assert.equal(guest.hello!.role, "view");
	for (const [type, fields] of [["prompt", { message: "let me in" }], ["steer", { message: "x" }], ["abort", {}]] as const) {
		const refused = await guest.command(type, fields);
		assert.deepEqual(refused, {
			type: "response",
			id: refused.id,
			command: type,
			success: false,
			error: "This is a view-only link: its guests can watch but not send commands",
			code: "forbidden",
		});
	}
	assert.deepEqual(harness.received, []);
	const from = guest.messages.length;
	harness.publish(PRIMARY_SESSION, { type: "agent_start" });
	await guest.waitForMessage((m) => m.type === "agent_start", from);
	assert.equal((await host.ok({ type: "collab_status" })).rooms[0].viewGuests, 1);
	await hostStillWorks();
});

test("wrong, missing and malformed capabilities and unknown rooms are refused alike before the upgrade, and logged without secrets", async () => {
	const room = await host.ok({ type: "collab_start" });
	const { wsUrl, key } = parseLink(room.controlLink);
	const nonce = Buffer.alloc(16, 7).toString("base64url");
	const wrongCapability = `skiff-collab-v1.${capabilityOf(Buffer.alloc(32, 1)).toString("base64url")}.${nonce}`;
	const rightCapability = capabilityOf(key).toString("base64url");
	const cases: Array<[string, string, string[], number]> = [
		["wrong capability", wsUrl, [wrongCapability], 401],
		["no subprotocol", wsUrl, [], 401],
		["another subprotocol only", wsUrl, ["skiff-auth.token"], 401],
		["the raw key instead of its hash", wsUrl, [`skiff-collab-v1.${Buffer.from(key).toString("base64url")}.${nonce}`], 401],
		["no nonce", wsUrl, [`skiff-collab-v1.${rightCapability}`], 401],
		["a short nonce", wsUrl, [`skiff-collab-v1.${rightCapability}.AAAA`], 401],
		["not base64url", wsUrl, [`skiff-collab-v1.${rightCapability.slice(0, -1)}+.${nonce}`], 401],
		["two offers", wsUrl, [`skiff-collab-v1.${rightCapability}.${nonce}`, wrongCapability], 400],
		["unknown room", `${harness.url.replace("http", "ws")}/collab/ws/AAAAAAAAAAAAAAAAAAAAAA`, [`skiff-collab-v1.${rightCapability}.${nonce}`], 401],
	];
	for (const [what, url, protocols, status] of cases) {
		const refused = await RawGuest.connect(`${url.replace(/^ws/, "http")}#c=${Buffer.from(key).toString("base64url")}`, { protocols }).then(
			() => assert.fail(`${what}: admitted`),
			(error: { status?: number; body?: string }) => error,
		);
		assert.equal(refused.status, status, what);
		if (status === 401) assert.equal(refused.body!.trim(), "unauthorized: unknown collaboration room or invalid capability", what);
		assertNoLeak(refused.body ?? "", room);
	}
	assert.equal(harness.logs.filter((l) => /authentication failed from 127\.0\.0\.1 on \/collab: 40[01]/.test(l)).length, cases.length);
	assertNoLeak(harness.logs.join("\n"), room);
	assert.equal((await host.ok({ type: "collab_status" })).rooms[0].controlGuests, 0);
	await hostStillWorks();
});

test("stopping a room closes its guests with 4001, and its links stop working", async () => {
	const room = await host.ok({ type: "collab_start" });
	const control = await join(room.controlLink);
	const view = await join(room.viewLink);
	const joining = await connect(room.viewLink); // seated, not joined yet
	const stopped = await host.ok({ type: "collab_stop", roomId: room.roomId });
	assert.deepEqual(stopped, { roomId: room.roomId, sessionId: PRIMARY_SESSION, closedGuests: 3 });
	for (const guest of [control, view, joining]) assert.deepEqual(await guest.waitForClose(), { code: CLOSE_ROOM_STOPPED, reason: ROOM_STOPPED_REASON });
	await host.waitForEvent((e) => e.type === "collab_updated" && e.stopped === true);
	await assert.rejects(RawGuest.connect(room.controlLink), { status: 401 });
	assert.deepEqual((await host.ok({ type: "collab_status" })).rooms, []);
	assert.equal((await host.request({ type: "collab_stop", roomId: room.roomId })).code, "not_found");
	await hostStillWorks();
});

test("a guest beyond the participant limit is closed with 4003; joining guests count", async () => {
	await harness.close();
	harness = await startCollabHarness({ maxParticipants: 2 });
	host = await TestClient.connect(harness.wsUrl);
	const room = await host.ok({ type: "collab_start" });
	const first = await join(room.controlLink);
	await connect(room.viewLink);
	const third = await connect(room.viewLink);
	assert.deepEqual(await third.waitForClose(), { code: CLOSE_ROOM_FULL, reason: ROOM_FULL_REASON });
	assert.equal(third.hello, undefined, "no hello for a guest not seated");
	first.close();
	await first.waitForClose();
	await host.waitForEvent((e) => e.type === "collab_updated" && e.controlGuests === 0);
	const again = await join(room.controlLink);
	assert.equal(again.closed, undefined, "a seat freed is taken again");
});

test("frames out of place close the guest: text, garbage, replays, altered and oversize frames, no join", async () => {
	const room = await host.ok({ type: "collab_start" });
	const expectClose = async (guest: RawGuest, code: number, reason?: string) => {
		const closed = await guest.waitForClose();
		assert.equal(closed.code, code);
		if (reason !== undefined) assert.equal(closed.reason, reason);
		assertNoLeak(closed.reason, room);
	};

	const text = await join(room.controlLink);
	text.sendRaw('{"type":"prompt","message":"plaintext"}', false);
	await expectClose(text, 1003, "collaboration frames must be binary (encrypted)");

	const garbage = await join(room.controlLink);
	garbage.sendRaw(Buffer.from("definitely not a frame, but long enough to hold one"));
	await expectClose(garbage, 1008, "invalid collaboration frame");

	const replay = await join(room.controlLink);
	const sent = replay.send({ type: "prompt", message: "once" });
	await replay.waitForMessage((m) => m.type === "response");
	replay.sendRaw(sent);
	await expectClose(replay, 1008, "invalid collaboration frame");

	const altered = await join(room.controlLink);
	const frame = altered.channel!.seal(Buffer.from(JSON.stringify({ type: "prompt", message: "twice" })));
	frame[frame.length - 20]! ^= 0xff;
	altered.sendRaw(frame);
	await expectClose(altered, 1008, "invalid collaboration frame");

	const oversize = await join(room.controlLink);
	oversize.sendRaw(Buffer.alloc(MAX_GUEST_FRAME_BYTES + 1));
	await expectClose(oversize, 1009);

	const noJoin = await connect(room.controlLink);
	await noJoin.waitFor(() => noJoin.hello, "hello");
	noJoin.send({ type: "prompt", message: "without joining" });
	await expectClose(noJoin, 1008, "the first collaboration frame must be collab_join");

	assert.equal(harness.received.filter((r) => r.message === "twice" || r.message === "without joining").length, 0);
	assert.deepEqual(harness.received.map((r) => r.message), ["once"]);
	assert.ok(harness.logs.some((l) => /invalid collaboration frame \(sequence\)/.test(l)), "the replay is logged as one");
	assert.ok(harness.logs.some((l) => /invalid collaboration frame \(authentication\)/.test(l)), "the alteration too");
	assertNoLeak(harness.logs.join("\n"), room);
	await hostStillWorks();
});

test("a guest that never joins is closed when its time is up, and its seat is freed", async () => {
	await harness.close();
	harness = await startCollabHarness({ joinTimeoutMs: 50, maxParticipants: 1 });
	host = await TestClient.connect(harness.wsUrl);
	const room = await host.ok({ type: "collab_start" });
	const idle = await connect(room.controlLink);
	assert.deepEqual(await idle.waitForClose(), { code: 1008, reason: "collaboration join timed out" });
	// Seated (it gets a hello), not refused as a guest over the limit (4003). It has 50 ms to join, so only
	// its seat is checked here, not its join.
	const next = await connect(room.controlLink);
	assert.equal((await next.waitFor(() => next.hello, "hello")).role, "control");
});

test("a transcript change other than appending sends a new snapshot; events in between are never lost", async () => {
	const room = await host.ok({ type: "collab_start" });
	const guest = await join(room.controlLink);
	const from = guest.messages.length;
	harness.transcripts.set(PRIMARY_SESSION, [{ role: "compactionSummary", summary: "earlier", tokensBefore: 10, timestamp: 5 }]);
	harness.publish(PRIMARY_SESSION, { type: "compaction_end", reason: "manual", result: { summary: "earlier" }, aborted: false, willRetry: false });
	harness.publish(PRIMARY_SESSION, { type: "agent_start" });
	const snapshot = await guest.waitForMessage((m) => m.type === "collab_snapshot", from);
	assert.deepEqual(snapshot.messages.map((m: any) => m.role), ["compactionSummary"]);
	assert.ok(guest.messages.indexOf(snapshot) > guest.messages.findIndex((m) => m.type === "compaction_end"), "the event, then the snapshot");
	// agent_start was published while the snapshot was taken: it is in the snapshot, or it follows it.
	const start = guest.messages.find((m) => m.type === "agent_start");
	if (start) assert.ok(start.seq > snapshot.seq && guest.messages.indexOf(start) > guest.messages.indexOf(snapshot));
	else assert.ok(snapshot.seq >= harness.streams.hub(PRIMARY_SESSION).seq);
	harness.publish(PRIMARY_SESSION, { type: "agent_end", messageCount: 0 });
	const end = await guest.waitForMessage((m) => m.type === "agent_end", from);
	assert.ok(end.seq > snapshot.seq);
});

test("a guest that stops reading is cut off; the host and other guests are not slowed", async () => {
	await harness.close();
	harness = await startCollabHarness({ limits: { clientQueueBytes: 256 * 1024, writeHighWaterBytes: 16 * 1024 } });
	host = await TestClient.connect(harness.wsUrl);
	const room = await host.ok({ type: "collab_start" });
	const slow = await join(room.viewLink);
	const fast = await join(room.viewLink);
	(slow.socket as unknown as { _socket: { pause(): void } })._socket.pause();
	// Words, so that each delta is released whole (a guest never gets a word before it ends).
	const delta = "yyyyyyy ".repeat(2 * 1024);
	harness.publish(PRIMARY_SESSION, { type: "message_update", assistantMessageEvent: { type: "text_start", contentIndex: 0 } });
	let published = 0;
	while (!harness.logs.some((l) => /cut off collaboration guest .* client is not reading messages/.test(l)) && published < 4096) {
		for (let i = 0; i < 16; i++, published++) harness.publish(PRIMARY_SESSION, { type: "message_update", assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta } });
		await nextTurn();
	}
	assert.ok(harness.logs.some((l) => /cut off collaboration guest .* client is not reading messages/.test(l)), "the slow guest was cut off");
	harness.publish(PRIMARY_SESSION, { type: "agent_end", messageCount: 0 });
	await fast.waitForMessage((m) => m.type === "agent_end");
	assert.equal(fast.closed, undefined);
	const text = fast.messages.filter((m) => m.type === "message_update").map((m) => m.assistantMessageEvent.delta).join("");
	assert.equal(text.length, published * delta.length, "the guest that reads gets every character (merged deltas at most)");
	await hostStillWorks();
});
