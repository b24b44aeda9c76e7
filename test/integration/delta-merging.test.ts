/**
 * The service merges the streaming deltas pi emits within one turn of the event loop (src/protocol/delta-run.ts):
 * a burst from the model arrives as fewer events holding the same text, numbered with consecutive seqs for every
 * follower, and a delta that arrives alone is sent without waiting for the next. What the hub published is read
 * back through a `subscribe` replay, which the transport never merges (a command is in flight meanwhile), so the
 * counts are the service's, not a slow test client's.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type ChatService, startChatService } from "../support/browser.js";
import { type Event, TestClient } from "../support/ws-client.js";

let service: ChatService;
let client: TestClient;

before(async () => {
	service = await startChatService();
	client = await TestClient.connect(service.skiff.wsUrl);
});

after(async () => {
	client?.close();
	await service?.close();
});

/**
 * Runs `message` to its end (`prompt`, or another command that starts a run, and the event that ends it); returns
 * the events the service published meanwhile, read back by a replay.
 */
async function publishedFor(
	message: string,
	start: Record<string, unknown> = { type: "prompt" },
	ended = (e: Event) => e.type === "agent_end",
): Promise<{ live: Event[]; published: Event[] }> {
	const { lastSeq, epoch } = await client.ok({ type: "get_state" });
	const from = client.events.length;
	await client.ok({ ...start, message });
	await client.waitForEvent(ended, 30_000, from);
	const reader = await TestClient.connect(service.skiff.wsUrl);
	try {
		const { replayed, resync } = await reader.ok({ type: "subscribe", sinceSeq: lastSeq, epoch });
		assert.equal(resync, false);
		assert.equal(reader.events.length, replayed);
		return { live: client.events.slice(from), published: reader.events };
	} finally {
		reader.close();
	}
}

const deltasOf = (events: Event[], type: string) => events.filter((e) => e.type === "message_update" && e.assistantMessageEvent.type === type).map((e) => e.assistantMessageEvent.delta as string);

test("a burst of text and thinking deltas arrives as fewer events with the same text, seqs consecutive", async () => {
	const thinking = "let me think about it ".repeat(15);
	const { live, published } = await publishedFor(`THINK ${thinking.trim()}\nBENCH 2000\nCHUNKS 1`);
	const seqs = published.map((e) => e.seq);
	assert.ok(
		seqs.every((seq, i) => i === 0 || seq === seqs[i - 1]! + 1),
		"the service numbers what it sends: nothing merged away after numbering",
	);
	const text = deltasOf(published, "text_delta");
	assert.equal(text.join(""), "x".repeat(2000));
	assert.ok(text.length < 2000, `2,000 one-character deltas went out as ${text.length} events`);
	const thought = deltasOf(published, "thinking_delta");
	assert.equal(thought.join(""), thinking.trim());
	assert.ok(thought.length < thinking.trim().length, `${thinking.trim().length} one-character thinking deltas went out as ${thought.length} events`);
	assert.equal(deltasOf(live, "text_delta").join(""), "x".repeat(2000), "the live follower has the same text");
	assert.equal(published.at(-1)!.type, "agent_end", "the end comes after every delta");
});

test("a tool call's arguments streamed a character at a time arrive merged, and still parse to the call", async () => {
	const word = "merged-arguments-".repeat(12);
	const { published } = await publishedFor(`RUN echo ${word}\nCHUNKS 1\nAFTER_TOOL done`);
	const args = deltasOf(published, "toolcall_delta");
	assert.equal(args.join(""), JSON.stringify({ command: `echo ${word}` }));
	assert.ok(args.length < args.join("").length, `${args.join("").length} argument pieces went out as ${args.length} events`);
	const end = published.find((e) => e.type === "tool_execution_end")!;
	assert.match(JSON.stringify(end.result), new RegExp(word));
});

test("a side chat's burst arrives merged too, between the main session's events, with the same text", async () => {
	await client.ok({ type: "side_chat_new", name: "aside" });
	const isTab = (e: Event) => e.type === "side_chat_event" && e.name === "aside";
	const { published } = await publishedFor("BENCH 2000", { type: "side_chat_prompt", name: "aside" }, (e) => isTab(e) && e.event.type === "agent_end");
	const seqs = published.map((e) => e.seq);
	assert.ok(seqs.every((seq, i) => i === 0 || seq === seqs[i - 1]! + 1));
	const text = deltasOf(published.filter(isTab).map((e) => e.event as Event), "text_delta");
	assert.equal(text.join(""), "x".repeat(2000));
	assert.ok(text.length < 2000, `2,000 one-character deltas of the tab went out as ${text.length} events`);
	const { messages } = await client.ok({ type: "side_chat_messages", name: "aside" });
	assert.equal(messages.at(-1).content[0].text, "x".repeat(2000));
});

test("a delta that arrives alone is sent at once, not held for the next one", async () => {
	const from = client.events.length;
	// The fake sends "first", then waits a minute before " second": the event must come while it waits.
	await client.ok({ type: "prompt", message: "REPLY first second\nPAUSE 60000" });
	const first = await client.waitForEvent((e) => e.type === "message_update" && e.assistantMessageEvent.type === "text_delta", 15_000, from);
	assert.equal(first.assistantMessageEvent.delta, "first");
	await client.ok({ type: "abort" });
	await client.waitForEvent((e) => e.type === "agent_end", 15_000, from);
});
