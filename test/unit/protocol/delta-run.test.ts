import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_RUN_CHARS } from "../../../src/protocol/delta-run.js";
import { EventHub } from "../../../src/protocol/event-hub.js";

const delta = (text: string, type = "text_delta", contentIndex?: number) => ({
	type: "message_update",
	assistantMessageEvent: contentIndex === undefined ? { type, delta: text } : { type, contentIndex, delta: text },
});
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

function followed(hub: EventHub) {
	const seen: Array<Record<string, unknown>> = [];
	hub.subscribe((p) => seen.push(JSON.parse(p.json)));
	return seen;
}

test("deltas of one block offered in one turn go out at the end of it as one event with their joined text", async () => {
	const hub = new EventHub("s1");
	const a = followed(hub);
	const b = followed(hub);
	for (const text of ["Hel", "lo", ", ", "wor", "ld"]) hub.offer(delta(text));
	assert.deepEqual(a, [], "held while the turn lasts");
	await nextTurn();
	const merged = { type: "message_update", sessionId: "s1", seq: 1, assistantMessageEvent: { type: "text_delta", delta: "Hello, world" } };
	assert.deepEqual(a, [merged]);
	assert.deepEqual(b, [merged], "every follower gets the same merged event");
	hub.offer(delta("!"));
	await nextTurn();
	assert.deepEqual(a.at(-1), { ...merged, seq: 2, assistantMessageEvent: { type: "text_delta", delta: "!" } }, "the next turn's delta is its own event, numbered next");
});

test("a delta that arrives alone is not delayed past its turn: it is out before what the turn scheduled after it", async () => {
	const hub = new EventHub("s1");
	const seen = followed(hub);
	hub.offer(delta("x"));
	const atTurnEnd = await new Promise<number>((resolve) => setImmediate(() => resolve(seen.length)));
	assert.equal(atTurnEnd, 1);
});

test("any other event publishes the held deltas first, so order is kept", () => {
	const hub = new EventHub("s1");
	const seen = followed(hub);
	hub.offer(delta("a"));
	hub.offer(delta("b"));
	hub.offer({ type: "tool_execution_start", toolCallId: "t" }); // offered: not a delta, published at once
	hub.offer(delta("c"));
	hub.publish({ type: "side_chat_updated", tabs: [] }); // published by a feature
	hub.offer(delta("d"));
	hub.offer({ type: "message_update", assistantMessageEvent: { type: "text_end", contentIndex: 0, content: "abcd" } });
	assert.deepEqual(
		seen.map((e) => [e.seq, e.type, (e.assistantMessageEvent as { delta?: string; type?: string } | undefined)?.delta ?? (e.assistantMessageEvent as { type?: string } | undefined)?.type]),
		[
			[1, "message_update", "ab"],
			[2, "tool_execution_start", undefined],
			[3, "message_update", "c"],
			[4, "side_chat_updated", undefined],
			[5, "message_update", "d"],
			[6, "message_update", "text_end"],
		],
	);
});

test("deltas of another block or kind start a run of their own; thinking and tool-call arguments merge as text does", async () => {
	const hub = new EventHub("s1");
	const seen = followed(hub);
	hub.offer(delta("th", "thinking_delta"));
	hub.offer(delta("ink", "thinking_delta"));
	hub.offer(delta("A", "text_delta", 1));
	hub.offer(delta("B", "text_delta", 1));
	hub.offer(delta("C", "text_delta", 2));
	hub.offer(delta('{"pa', "toolcall_delta", 3));
	hub.offer(delta('th":1}', "toolcall_delta", 3));
	hub.offer(delta("z", "text_delta", 0));
	hub.offer(delta("y")); // index absent: block 0, the same run
	await nextTurn();
	assert.deepEqual(
		seen.map((e) => e.assistantMessageEvent),
		[
			{ type: "thinking_delta", delta: "think" },
			{ type: "text_delta", contentIndex: 1, delta: "AB" },
			{ type: "text_delta", contentIndex: 2, delta: "C" },
			{ type: "toolcall_delta", contentIndex: 3, delta: '{"path":1}' },
			{ type: "text_delta", contentIndex: 0, delta: "zy" },
		],
	);
	assert.deepEqual(
		seen.map((e) => e.seq),
		[1, 2, 3, 4, 5],
		"consecutive seqs: nothing is numbered and then merged away",
	);
});

test("a run is published at once when it reaches its bound, so a long burst still streams in pieces", () => {
	const hub = new EventHub("s1");
	const seen = followed(hub);
	const piece = "x".repeat(1000);
	let offered = 0;
	while (seen.length === 0) {
		hub.offer(delta(piece));
		offered += piece.length;
		assert.ok(offered <= MAX_RUN_CHARS + piece.length, "never held past the bound");
	}
	assert.equal((seen[0]!.assistantMessageEvent as { delta: string }).delta.length, Math.ceil(MAX_RUN_CHARS / piece.length) * piece.length);
	const huge = "y".repeat(MAX_RUN_CHARS * 2);
	hub.offer(delta(huge));
	assert.equal((seen[1]!.assistantMessageEvent as { delta: string }).delta, huge, "a delta over the bound alone goes out whole, at once");
});

test("reading the seq, replaying or subscribing publishes the held deltas first: a snapshot's seq covers their text", () => {
	const hub = new EventHub("s1");
	const early = followed(hub);
	hub.offer(delta("a"));
	assert.equal(hub.seq, 1, "the seq a snapshot reads covers the delta already in pi's message");
	assert.equal(early.length, 1);
	hub.offer(delta("b"));
	assert.deepEqual(
		hub.since(1)!.map((p) => p.event.assistantMessageEvent),
		[{ type: "text_delta", delta: "b" }],
		"a replay includes what was held",
	);
	hub.offer(delta("c"));
	const late = followed(hub);
	assert.deepEqual(late, [], "a follower from now on does not get what came before it");
	assert.equal(early.length, 3);
	hub.offer(delta("d"));
	hub.forgetReplay();
	assert.equal(early.length, 4, "dropping the replay window publishes what was held before");
});

test("events that only look like deltas are published as they are, never held or merged", async () => {
	const hub = new EventHub("s1");
	const seen = followed(hub);
	hub.offer({ type: "message_update", assistantMessageEvent: { type: "text_delta", delta: 42 } });
	hub.offer({ type: "message_update", assistantMessageEvent: null });
	hub.offer({ type: "message_update" });
	hub.offer({ type: "text_delta", delta: "x" });
	assert.equal(seen.length, 4);
	await nextTurn();
	assert.equal(seen.length, 4);
});

test("deltas of another stream on the hub (a side chat's tab) merge among themselves, wrapped, never with the session's own", async () => {
	const hub = new EventHub("s1");
	const seen = followed(hub);
	const tab = (name: string, text: string) => {
		const wrap = (update: { type: string; [key: string]: unknown }) => ({ type: "side_chat_event", name, event: update });
		const update = delta(text);
		hub.offer(wrap(update), { update, scope: `side_chat_event\n${name}`, wrap });
	};
	tab("a", "si");
	tab("a", "de");
	hub.offer(delta("main"));
	tab("a", " one");
	tab("b", "other");
	tab("b", " tab");
	await nextTurn();
	assert.deepEqual(
		seen.map((e) => [e.seq, e.type, e.name, ((e.event ?? e) as { assistantMessageEvent: { delta: string } }).assistantMessageEvent.delta]),
		[
			[1, "side_chat_event", "a", "side"],
			[2, "message_update", undefined, "main"],
			[3, "side_chat_event", "a", " one"],
			[4, "side_chat_event", "b", "other tab"],
		],
	);
	assert.deepEqual(seen[0], { type: "side_chat_event", sessionId: "s1", seq: 1, name: "a", event: { type: "message_update", assistantMessageEvent: { type: "text_delta", delta: "side" } } });
});

test("a follower that throws on a run flushed at the turn's end neither stops the process nor the followers after it", async () => {
	const hub = new EventHub("s1");
	hub.subscribe(() => {
		throw new Error("a broken follower: secret-free, but it must not matter");
	});
	const seen = followed(hub);
	const written: string[] = [];
	const write = process.stderr.write;
	process.stderr.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stderr.write;
	try {
		hub.offer(delta("Hel"));
		hub.offer(delta("lo"));
		await nextTurn();
	} finally {
		process.stderr.write = write;
	}
	assert.deepEqual(seen.map((e) => (e.assistantMessageEvent as { delta: string }).delta), ["Hello"]);
	assert.match(written.join(""), /a follower of session s1 failed on event 1 \(Error\)/);
	assert.doesNotMatch(written.join(""), /Hello|broken follower/, "neither the event's text nor the error's message is written");
});

test("a delta joins a run only when its kind, content block and stream all match the run's; one differing alone starts a run", async () => {
	const hub = new EventHub("s1");
	const seen = followed(hub);
	const wrap = (update: { type: string; [key: string]: unknown }) => ({ type: "side_chat_event", name: "a", event: update });
	const inTab = (text: string, type = "text_delta", contentIndex?: number) => {
		const update = delta(text, type, contentIndex);
		hub.offer(wrap(update), { update, scope: "side_chat_event\na", wrap });
	};
	hub.offer(delta("a", "text_delta", 0));
	hub.offer(delta("b", "text_delta", 0)); // joins
	hub.offer(delta("c", "thinking_delta", 0)); // the same block, another kind
	hub.offer(delta("d", "text_delta", 0)); // back to text: a new run
	hub.offer(delta("e", "text_delta", 1)); // the same kind, another block
	hub.offer(delta("f", "toolcall_delta", 1)); // the same block, another kind
	inTab("g", "toolcall_delta", 1); // the same kind and block, another stream
	inTab("h", "toolcall_delta", 1); // joins the tab's run
	hub.offer(delta("i", "toolcall_delta", 1)); // the session's own again
	await nextTurn();
	assert.deepEqual(
		seen.map((e) => [e.type, ((e.event ?? e) as { assistantMessageEvent: Record<string, unknown> }).assistantMessageEvent]),
		[
			["message_update", { type: "text_delta", contentIndex: 0, delta: "ab" }],
			["message_update", { type: "thinking_delta", contentIndex: 0, delta: "c" }],
			["message_update", { type: "text_delta", contentIndex: 0, delta: "d" }],
			["message_update", { type: "text_delta", contentIndex: 1, delta: "e" }],
			["message_update", { type: "toolcall_delta", contentIndex: 1, delta: "f" }],
			["side_chat_event", { type: "toolcall_delta", contentIndex: 1, delta: "gh" }],
			["message_update", { type: "toolcall_delta", contentIndex: 1, delta: "i" }],
		],
	);
});

test("a merged run keeps the first event's other fields and part fields; an event that wraps no delta is published as it is", async () => {
	const hub = new EventHub("s1");
	const seen = followed(hub);
	const first = { type: "message_update", message: { role: "assistant" }, assistantMessageEvent: { type: "text_delta", contentIndex: 2, delta: "x", extra: 1 } };
	hub.offer(first);
	hub.offer({ type: "message_update", assistantMessageEvent: { type: "text_delta", contentIndex: 2, delta: "y" } });
	const wrap = (update: { type: string; [key: string]: unknown }) => ({ type: "side_chat_event", name: "t", event: update });
	const end = { type: "message_update", assistantMessageEvent: { type: "text_end", contentIndex: 2 } };
	hub.offer(wrap(end), { update: end, scope: "tab", wrap });
	hub.offer(wrap({ type: "agent_start" }), { update: { type: "agent_start" }, scope: "tab", wrap });
	await nextTurn();
	assert.deepEqual(seen, [
		{ type: "message_update", sessionId: "s1", seq: 1, message: { role: "assistant" }, assistantMessageEvent: { type: "text_delta", contentIndex: 2, delta: "xy", extra: 1 } },
		{ type: "side_chat_event", sessionId: "s1", seq: 2, name: "t", event: end },
		{ type: "side_chat_event", sessionId: "s1", seq: 3, name: "t", event: { type: "agent_start" } },
	]);
	assert.deepEqual(first.assistantMessageEvent, { type: "text_delta", contentIndex: 2, delta: "x", extra: 1 }, "the offered event is not altered");
});
