/** Several sessions in one process: create, switch, fork, clone, close, evict, and restore after restart. */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "../support/skiff-process.js";
import { useSkiffStarter } from "../support/skiff-starter.js";
import { TestClient } from "../support/ws-client.js";

const service = useSkiffStarter();
const start = (args: string[] = []) => service.start({ args });

async function say(client: TestClient, text: string, sessionId?: string): Promise<void> {
	const from = client.events.length;
	await client.ok({ type: "prompt", message: text, sessionId });
	await client.waitForEvent((e) => e.type === "agent_end" && (!sessionId || e.sessionId === sessionId), 20_000, from);
}

test("switch, new, fork, clone, close and list sessions; each answers with a snapshot", async () => {
	const { skiff, client } = await start(["--max-sessions", "3"]);
	const primary = await client.ok({ type: "get_state" });
	assert.equal(primary.primary, true);
	await say(client, "REPLY first answer\nfirst question");
	await say(client, "REPLY second answer\nsecond question");

	const created = await client.ok({ type: "new_session" });
	assert.notEqual(created.sessionId, primary.sessionId);
	assert.deepEqual(created.messages, []);
	assert.equal(created.state.primary, false);
	await say(client, "REPLY other answer\nother session question", created.sessionId);

	// Events are routed by session: the other session's run carried its own id.
	const otherEvents = client.events.filter((e) => e.sessionId === created.sessionId);
	assert.ok(otherEvents.some((e) => e.type === "agent_end"));
	const primaryMessages = (await client.ok({ type: "get_messages" })).messages;
	assert.equal(primaryMessages.filter((m: any) => m.role === "user").length, 2, "the primary transcript is untouched");

	// Fork before the second question: the new session holds only the first exchange.
	const { messages: points } = await client.ok({ type: "get_fork_messages" });
	assert.equal(points.length, 2);
	const forked = await client.ok({ type: "fork", entryId: points[1].entryId });
	assert.match(forked.text, /second question/);
	assert.deepEqual(forked.messages.map((m: any) => m.role), ["user", "assistant"]);
	assert.notEqual(forked.sessionId, primary.sessionId);

	const cloned = await client.ok({ type: "clone" });
	assert.equal(cloned.messages.length, primaryMessages.length);

	// Listing: this project's sessions, loaded ones marked.
	const { sessions } = await client.ok({ type: "session_list" });
	const ids = sessions.map((s: any) => s.sessionId);
	for (const id of [primary.sessionId, created.sessionId, cloned.sessionId]) assert.ok(ids.includes(id), `listed ${id}`);
	// A fork or clone names the session it came from, so a list can mark it.
	const row = (id: string) => sessions.find((s: any) => s.sessionId === id);
	assert.equal(row(cloned.sessionId).parentSession, primary.sessionFile);
	assert.equal(row(created.sessionId).parentSession, undefined);
	const all = await client.ok({ type: "session_list", scope: "all" });
	assert.ok(all.sessions.length >= sessions.length);

	// With --max-sessions 3 and four sessions opened, an idle one was unloaded, and comes back on demand.
	const reopened = await client.ok({ type: "get_messages", sessionId: created.sessionId });
	assert.equal(reopened.messages.filter((m: any) => m.role === "user").length, 1);

	// Close: primary refused; another closes and resumes from disk by id prefix.
	const refuse = await client.request({ type: "close_session", sessionId: primary.sessionId });
	assert.equal(refuse.success, false);
	assert.match(refuse.error!, /primary/);
	const closed = await client.ok({ type: "close_session", sessionId: created.sessionId });
	assert.deepEqual(closed, { closed: true, sessionId: created.sessionId, wasLoaded: true });
	const switched = await client.ok({ type: "switch_session", sessionPath: created.sessionId.slice(0, 18) });
	assert.equal(switched.sessionId, created.sessionId);
	assert.equal(switched.messages.length, 2);
	// A new session in which nothing was said yet has no file, and is still switched to by its id.
	const fresh = await client.ok({ type: "new_session" });
	const back = await client.ok({ type: "switch_session", sessionPath: fresh.sessionId });
	assert.equal(back.sessionId, fresh.sessionId);
	assert.deepEqual(back.messages, []);
	const unknown = await client.request({ type: "get_state", sessionId: "no-such-session" });
	assert.equal(unknown.success, false);
	assert.match(unknown.error!, /Unknown session: no-such-session/);
	const ambiguousOrMissing = await client.request({ type: "switch_session", sessionPath: "zzzz" });
	assert.equal(ambiguousOrMissing.success, false);
	assert.match(ambiguousOrMissing.error!, /No recorded session matches "zzzz"/);

	client.close();
	assert.equal(await skiff.stop("SIGTERM"), 0);
});

test("restart with --continue restores the newest transcript of this directory", async () => {
	const first = await start(["--session-id", "restart-check"]);
	await say(first.client, "REPLY remembered\nremember the word tangerine");
	first.client.close();
	assert.equal(await first.skiff.stop("SIGINT"), 0);

	const second = await start(["--continue"]);
	const state = await second.client.ok({ type: "get_state" });
	assert.equal(state.sessionId, "restart-check");
	const { messages } = await second.client.ok({ type: "get_messages" });
	assert.match(JSON.stringify(messages), /tangerine/);
	await say(second.client, "REPLY still here\nand again");
	assert.equal((await second.client.ok({ type: "get_messages" })).messages.length, 4);
	second.client.close();
	assert.equal(await second.skiff.stop(), 0);

	const third = await start(["--resume", "restart"]);
	assert.equal((await third.client.ok({ type: "get_state" })).sessionId, "restart-check");
	third.client.close();
	await third.skiff.stop();

	const memory = await start(["--no-session"]);
	const memState = await memory.client.ok({ type: "get_state" });
	assert.equal(memState.persisted, false);
	assert.equal(memState.sessionFile, undefined);
	const fork = await memory.client.request({ type: "clone" });
	assert.equal(fork.success, false);
	assert.match(fork.error!, /not recorded/);
	memory.client.close();
	await memory.skiff.stop();
});

test("a client catches up by seq after reconnecting, without loss or repeats", async () => {
	const { skiff, client } = await start(["--session-id", "catch-up"]);
	const state = await client.ok({ type: "get_state" });
	await say(client, "REPLY warm up");
	const seenSeq = client.events.at(-1)!.seq;
	client.close();

	// Another client drives a run while the first is away.
	const other = await TestClient.connect(skiff.wsUrl);
	await say(other, "REPLY while you were away");
	const head = (await other.ok({ type: "get_state" })).lastSeq;
	assert.ok(head > seenSeq);

	const back = await TestClient.connect(skiff.wsUrl);
	const resumed = await back.ok({ type: "subscribe", sessionId: state.sessionId, sinceSeq: seenSeq, epoch: state.epoch });
	assert.equal(resumed.resync, false);
	assert.equal(resumed.replayed, head - seenSeq);
	assert.deepEqual(back.events.map((e) => e.seq), Array.from({ length: head - seenSeq }, (_, i) => seenSeq + 1 + i));
	await say(back, "REPLY live again");
	const seqs = back.events.map((e) => e.seq);
	assert.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => seenSeq + 1 + i), "no gap, no repeat");

	// A stale epoch (another process) or a seq from the future asks for a snapshot reload.
	const stale = await TestClient.connect(skiff.wsUrl);
	const answer = await stale.ok({ type: "subscribe", sessionId: state.sessionId, sinceSeq: 1, epoch: "another-process" });
	assert.equal(answer.resync, true);
	const rpc = await fetch(`${skiff.url}/rpc`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ type: "subscribe" }) });
	assert.equal(rpc.status, 400);
	assert.match((await rpc.json()).error, /\/ws/);
	for (const c of [other, back, stale]) c.close();
	await skiff.stop();
});

test("new sessions beyond the bound stay usable by id; a path outside the sessions folder is refused", async () => {
	const { client } = await start();
	const ids: string[] = [];
	for (let i = 0; i < 9; i++) ids.push((await client.ok({ type: "new_session" })).sessionId);
	// The first one was evicted before anything was said in it: it comes back under the same id.
	const first = await client.ok({ type: "get_state", sessionId: ids[0] });
	assert.equal(first.sessionId, ids[0]);
	await say(client, "REPLY still here\nhello", ids[0]);
	// A file that looks like a session but lies outside the sessions folder is never opened (nor appended to).
	const outside = join(tempDir(), "outside.jsonl");
	const header = `${JSON.stringify({ type: "session", version: 3, id: "outside", timestamp: new Date().toISOString(), cwd: service.cwd })}\n`;
	writeFileSync(outside, header);
	const refused = await client.request({ type: "switch_session", sessionPath: outside });
	assert.equal(refused.success, false);
	assert.match(refused.error!, /outside the sessions folder/);
	assert.equal(readFileSync(outside, "utf8"), header);
});
