/**
 * A steering or follow-up message that reaches a run after its last look at the queues (it is ending: the reply
 * is complete, agent_end not yet sent) is delivered by the next run, images included, instead of being dropped.
 * The moment is made exact by queueing the message from inside pi's last look, which the test wraps. (The page
 * sends `steer` until it sees agent_end, so under load this happens to people.)
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createPiRuntime } from "../../src/agent/pi/index.js";
import type { AgentHandle, RuntimeEvent } from "../../src/agent/types.js";
import { startFakeOpenAi, writeFakeModelsJson, type FakeOpenAiServer } from "../support/fake-openai.js";
import { tempDir } from "../support/skiff-process.js";
import { until } from "../support/until.js";

let model: FakeOpenAiServer;
before(async () => (model = await startFakeOpenAi()));
after(async () => model?.close());

const PIXEL = { type: "image" as const, data: "iVBORw0KGgo=", mimeType: "image/png" };

/** A session on the fake model, in memory, and the events it emits. */
async function openSession() {
	const agentDir = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	const runtime = createPiRuntime({ agentDir, model: "fake/fake-model" });
	const handle = await runtime.openSession({ kind: "memory", cwd: tempDir() }, {});
	const events: RuntimeEvent[] = [];
	handle.subscribe((event) => events.push(event));
	return { handle, events };
}

/** Runs `late` once, right after the agent's last look at its queues (steering, then follow-up) in a run that ends well. */
function atLastLook(handle: AgentHandle, late: () => Promise<void>): void {
	const queue = (handle as unknown as { session: { agent: { followUpQueue: { drain(): unknown[] } } } }).session.agent.followUpQueue;
	const drain = queue.drain.bind(queue);
	let armed = true;
	queue.drain = () => {
		const taken = drain();
		if (armed && taken.length === 0) {
			armed = false;
			void late();
		}
		return taken;
	};
}

/** Resolves once `count` runs have ended. */
function runsEnded(events: RuntimeEvent[], count: number): Promise<void> {
	return until(
		() => events.filter((e) => e.type === "agent_end").length >= count,
		() => `${count} runs to end: ${events.map((e) => e.type).join(", ")}`,
	);
}

/** How many messages a queue_update lists. */
const waiting = (e: RuntimeEvent) => (e.steering as string[]).length + (e.followUp as string[]).length;

const userTexts = (handle: AgentHandle) =>
	handle
		.messages()
		.filter((m) => m.role === "user")
		.map((m) => JSON.stringify(m.content));

for (const kind of ["steer", "followUp"] as const) {
	test(`a ${kind} that comes as a run ends well starts the next run, with its image`, async () => {
		const { handle, events } = await openSession();
		atLastLook(handle, () => handle[kind]("REPLY answered the late message", [PIXEL]));
		await handle.prompt("REPLY first reply");
		await runsEnded(events, 2);
		const users = userTexts(handle);
		assert.equal(users.length, 2);
		assert.match(users[1]!, /answered the late message/);
		assert.match(users[1]!, /iVBORw0KGgo=/, "the image came along");
		const replies = handle.messages().filter((m) => m.role === "assistant").map((m) => JSON.stringify(m.content));
		assert.match(replies.at(-1)!, /answered the late message/);
		const firstEnd = events.findIndex((e) => e.type === "agent_end");
		const queueAtEnd = events.slice(0, firstEnd).filter((e) => e.type === "queue_update").at(-1)!;
		assert.equal(waiting(queueAtEnd), 1, "the queue still lists it when the first run ends");
		assert.deepEqual(handle.queuedMessages(), { steering: [], followUp: [] });
		await handle.dispose();
	});
}

test("what comes as a failed run ends is dropped, announced before agent_end", async () => {
	const { handle, events } = await openSession();
	handle.setAutoRetry(false);
	// A failed reply ends the run at once, without a look at the queues: the steer comes with the failed reply.
	handle.subscribe((event) => {
		if (event.type === "message_end" && (event.message as { role: string }).role === "assistant") void handle.steer("REPLY never sent");
	});
	await handle.prompt("ERROR 400 the model refused");
	await runsEnded(events, 1);
	await new Promise((resolve) => setTimeout(resolve, 100)); // a next run would have started by now
	const end = events.findIndex((e) => e.type === "agent_end");
	const cleared = events.findIndex((e) => e.type === "queue_update" && waiting(e) === 0);
	assert.ok(cleared >= 0 && cleared < end, "the queue is emptied before agent_end");
	assert.equal(events.filter((e) => e.type === "agent_start").length, 1, "no second run");
	assert.ok(!userTexts(handle).some((u) => u.includes("never sent")));
	await handle.dispose();
});
