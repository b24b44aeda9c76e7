/** The page's left-out images (entry-images.ts): asked once, one at a time, a refusal asked again, the kept ones bounded. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { SkiffClient } from "../../../src/client/index.js";
import { entryImage } from "../../../web/src/state/entry-images.js";

const PNG = "iVBORw0KGgo";

/** A client whose get_image answers wait for `answer`; every call is listed. */
function fakeClient() {
	const calls: Array<{ entryId: string; index: number; sessionId: string; answer(result: { mimeType: string; data: string } | Error): void }> = [];
	const client = {
		call: (_type: string, params: { entryId: string; index: number }, options: { sessionId: string }) =>
			new Promise((resolve, reject) => calls.push({ ...params, sessionId: options.sessionId, answer: (r) => (r instanceof Error ? reject(r) : resolve(r)) })),
	} as unknown as SkiffClient;
	return { client, calls };
}

const turn = () => new Promise((resolve) => setTimeout(resolve, 0));

test("one request per image however often it is asked; one at a time; a refusal is asked again", async () => {
	const { client, calls } = fakeClient();
	const first = entryImage(client, "s1", "e1", 0);
	const again = entryImage(client, "s1", "e1", 0);
	const second = entryImage(client, "s1", "e1", 1);
	await turn();
	assert.equal(calls.length, 1, "the second image waits for the first");
	calls[0]!.answer({ mimeType: "image/png", data: PNG });
	assert.equal(await first, `data:image/png;base64,${PNG}`);
	assert.equal(await again, await first);
	await turn();
	assert.equal(calls.length, 2);
	calls[1]!.answer(new Error("Unknown entry e1"));
	await assert.rejects(second, /Unknown entry e1/);
	assert.equal(await entryImage(client, "s1", "e1", 0), await first, "kept: not asked again");
	const retried = entryImage(client, "s1", "e1", 1);
	await turn();
	assert.deepEqual(calls.slice(2).map((c) => [c.entryId, c.index]), [["e1", 1]], "refused: asked again");
	calls[2]!.answer({ mimeType: "image/svg+xml", data: PNG });
	await assert.rejects(retried, /Not an image the page shows/);
});

test("what is kept is bounded: the least recently used go first", async () => {
	const { client, calls } = fakeClient();
	const big = "A".repeat(7 * 1024 * 1024);
	for (let n = 0; n < 7; n++) {
		const image = entryImage(client, "s2", `e${n}`, 0);
		await turn();
		calls.at(-1)!.answer({ mimeType: "image/png", data: big });
		await image;
		if (n === 4) await entryImage(client, "s2", "e0", 0); // used again: the most recent now
	}
	assert.equal(calls.length, 7);
	const asked = (entryId: string) => {
		const before = calls.length;
		void entryImage(client, "s2", entryId, 0);
		return turn().then(() => calls.length > before);
	};
	assert.equal(await asked("e6"), false, "the newest is kept");
	assert.equal(await asked("e0"), false, "one used again is kept");
	assert.equal(await asked("e1"), true, "the least recently used went");
});
