/** get_image's handler against a pretend session: what the wire cannot carry, and one image at a time per client. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { getImage } from "../../../src/protocol/commands/images.js";
import { MAX_EVENT_IMAGE_CHARS } from "../../../src/protocol/wire-images.js";
import type { CommandContext } from "../../../src/protocol/context.js";

function contextOf(messages: Record<string, unknown>, client = {}, gate?: Promise<void>) {
	const handle = { entryMessage: (id: string) => messages[id] };
	return { client, session: async () => (await gate, { handle }) } as unknown as CommandContext;
}

/** The handler's answer, as a promise (its type allows a plain value). */
const ask = (entryId: string, index: number, context: CommandContext) => Promise.resolve(getImage.handler({ entryId, index }, context));
const user = (...content: unknown[]) => ({ role: "user", content, timestamp: 1 });

test("an image larger than one response carries is refused `limit`, naming it; a tool result's image is served", async () => {
	const big = user({ type: "image", mimeType: "image/png", data: "A".repeat(MAX_EVENT_IMAGE_CHARS + 4) });
	const tool = { role: "toolResult", content: [{ type: "text", text: "read" }, { type: "image", mimeType: "image/webp", data: "UklG" }] };
	const context = contextOf({ big, tool });
	await assert.rejects(ask("big", 0, context), (error: any) => error.code === "limit" && /Image 0 of entry big is \d+ characters/.test(error.message));
	assert.deepEqual(await ask("tool", 0, context), { mimeType: "image/webp", data: "UklG" });
});

test("an entry that is not a message, a string content, an image block without data: each refused", async () => {
	const context = contextOf({ label: undefined, text: { role: "user", content: "hi" }, broken: user({ type: "image", mimeType: "image/png" }) });
	for (const entryId of ["label", "text", "broken"]) {
		await assert.rejects(ask(entryId, 0, context), (error: any) => error.code === "invalid_command", entryId);
	}
});

test("one client's commands run one at a time, in order; another client's do not wait for them", async () => {
	const image = user({ type: "image", mimeType: "image/png", data: "iVBO" });
	let open!: () => void;
	const gate = new Promise<void>((resolve) => (open = resolve));
	const client = {};
	const order: string[] = [];
	const first = ask("slow", 0, contextOf({ slow: image }, client, gate)).then(() => order.push("first"));
	let secondAsked = false;
	const second = ask("x", 0, { ...contextOf({ x: image }, client), session: async () => ((secondAsked = true), { handle: { entryMessage: () => image } }) } as unknown as CommandContext).then(() =>
		order.push("second"),
	);
	assert.deepEqual(await ask("x", 0, contextOf({ x: image }, {})), { mimeType: "image/png", data: "iVBO" }, "another client goes first");
	assert.equal(secondAsked, false, "the second waits for the first");
	open();
	await Promise.all([first, second]);
	assert.deepEqual(order, ["first", "second"]);
	// A refusal does not stop the client's next command.
	await assert.rejects(ask("x", 5, contextOf({ x: image }, client)));
	assert.equal((await ask("x", 0, contextOf({ x: image }, client))).data, "iVBO");
});

test("a client's first image, and one asked once the answers before it left, run at once; only an image that follows another waits for its answer to leave", async () => {
	const image = user({ type: "image", mimeType: "image/png", data: "iVBO" });
	let drains = 0;
	let letDrain!: () => void;
	const client = {
		drained: () => {
			drains++;
			return new Promise<void>((resolve) => (letDrain = resolve));
		},
	};
	const context = contextOf({ x: image }, client);
	let turnEnded = false;
	setImmediate(() => (turnEnded = true));
	assert.equal((await ask("x", 0, context)).data, "iVBO");
	assert.equal(turnEnded, false, "the first image did not wait a turn of the event loop");
	assert.equal(drains, 0, "nor for an earlier answer to leave");

	let secondRan = false;
	const second = ask("x", 0, { ...context, session: async () => ((secondRan = true), { handle: { entryMessage: () => image } }) } as unknown as CommandContext);
	await new Promise((resolve) => setImmediate(resolve));
	await new Promise((resolve) => setImmediate(resolve));
	assert.equal(drains, 1, "the second waits for the first answer to leave");
	assert.equal(secondRan, false);
	letDrain();
	assert.equal((await second).data, "iVBO");
	assert.equal(secondRan, true);

	// Once the second's answer has left too, nothing is pending: the next image runs at once again.
	await new Promise((resolve) => setImmediate(resolve));
	letDrain();
	await new Promise((resolve) => setImmediate(resolve));
	turnEnded = false;
	setImmediate(() => (turnEnded = true));
	assert.equal((await ask("x", 0, context)).data, "iVBO");
	assert.equal(turnEnded, false, "an image asked after the answers left does not wait");
	assert.equal(drains, 2);
});
