/**
 * Images uploaded ahead of their message (POST /attachments) against the real listener, pi and the fake model:
 * eight 5 MiB images fit one message, the model's request carries them, and every bad upload or id is refused
 * with a status or error naming what was wrong, leaving nothing behind; get_image gives back, one per command,
 * the images the wire sent without their data.
 */
import assert from "node:assert/strict";
import { readdirSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { SkiffClient } from "../../src/client/node.js";
import { startFakeOpenAi, writeFakeModelsJson, type FakeOpenAiServer } from "../support/fake-openai.js";
import { httpRequest } from "../support/http.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { grainyPng } from "../support/png.js";
import { TestClient } from "../support/ws-client.js";

const TOKEN = "upload-token_for.tests";
const MIB = 1024 * 1024;
const PNG_HEAD = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

let model: FakeOpenAiServer;
let skiff: SkiffProcess;
let client: TestClient;
let typed: SkiffClient;
let uploadsDir: string;
let cwd: string;

/** A PNG's signature, then `size` bytes in all, each image telling itself apart by its filler. */
const png = (size: number, fill = 7) => Buffer.concat([PNG_HEAD, Buffer.alloc(size - PNG_HEAD.length, fill)]);

function post(body: Buffer | string, headers: Record<string, string> = {}) {
	return new Promise<{ status: number; body: string }>((resolve, reject) => {
		const req = request(`${skiff.url}/attachments`, { method: "POST", headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "image/png", ...headers } }, (res) => {
			let text = "";
			res.setEncoding("utf8");
			res.on("data", (d) => (text += d));
			res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
		});
		req.on("error", reject);
		req.end(body);
	});
}

before(async () => {
	model = await startFakeOpenAi();
	const agentDir = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	uploadsDir = join(agentDir, "attachments");
	const tokenFile = join(tempDir(), "token");
	writeFileSync(tokenFile, TOKEN, { mode: 0o600 });
	cwd = tempDir();
	skiff = await startSkiff({ agentDir, cwd, args: ["--model", "fake/fake-model", "--listen-token-file", tokenFile] });
	client = await TestClient.connect(skiff.wsUrl, { protocols: [`skiff-auth.${TOKEN}`] });
	typed = new SkiffClient({ url: skiff.wsUrl, token: TOKEN, reconnect: false });
	await typed.connect();
});

after(async () => {
	typed?.close();
	client?.close();
	await skiff?.stop();
	await model?.close();
});

/** Resolves once `probe` holds, looking every 20 ms (the test's own timeout bounds it). */
async function until(probe: () => boolean): Promise<void> {
	while (!probe()) await new Promise((resolve) => setTimeout(resolve, 20));
}

const runEnded = (from: number) => client.waitForEvent((e) => e.type === "agent_end", 20_000, from);
const lastUserContent = (index: number) => [...model.requests[index]!.body.messages].reverse().find((m: any) => m.role === "user").content as any[];

test("two uploads go with one prompt: the model gets both, and the uploads are removed once it is accepted", async () => {
	const first = await typed.upload(new Uint8Array(png(1000, 1)), "image/png");
	const second = await typed.upload(new Uint8Array(png(2000, 2)), "image/png");
	assert.match(first.id, /^[0-9a-f]{32}$/);
	assert.deepEqual({ mimeType: second.mimeType, bytes: second.bytes }, { mimeType: "image/png", bytes: 2000 });
	assert.equal(readdirSync(uploadsDir).length, 2, "both on the disk once answered");
	const from = client.events.length;
	const asked = model.requests.length;
	const images = [{ type: "image", attachmentId: first.id }, { type: "image", attachmentId: second.id }];
	await client.ok({ type: "prompt", message: "REPLY two pictures\nwhat are these?", images });
	await runEnded(from);
	const parts = lastUserContent(asked).filter((part) => part.type === "image_url");
	assert.deepEqual(
		parts.map((part) => part.image_url.url),
		[png(1000, 1), png(2000, 2)].map((data) => `data:image/png;base64,${data.toString("base64")}`),
	);
	assert.deepEqual(readdirSync(uploadsDir), [], "used uploads are removed");
	const again = await client.request({ type: "prompt", message: "again", images: [images[0]] });
	assert.equal(again.code, "not_found");
	assert.match(again.error!, new RegExp(`Attachment ${first.id} is unknown or expired`));
});

test("eight images of 5 MiB each go with one message, and the model's request carries them all", async () => {
	const ids: string[] = [];
	for (let n = 0; n < 8; n++) ids.push((await typed.upload(new Uint8Array(png(5 * MIB, n)), "image/png")).id);
	const from = client.events.length;
	const asked = model.requests.length;
	await client.ok({ type: "prompt", message: "REPLY eight\nlook", images: ids.map((attachmentId) => ({ type: "image", attachmentId })) }, 60_000);
	await runEnded(from);
	const parts = lastUserContent(asked).filter((part) => part.type === "image_url");
	assert.equal(parts.length, 8);
	assert.equal(parts[7].image_url.url, `data:image/png;base64,${png(5 * MIB, 7).toString("base64")}`);
	// What the page gets of the message is bounded (docs/protocol.md, "Images on the wire"): no client is cut off.
	const whole = png(5 * MIB, 0).toString("base64");
	const ended = client.events.slice(from).find((e) => e.type === "message_end" && e.message.role === "user")!;
	const started = client.events.slice(from).find((e) => e.type === "message_start" && e.message.role === "user")!;
	assert.ok(started.message.content.filter((b: any) => b.type === "image").every((b: any) => b.data === "" && b.omittedBytes === 5 * MIB));
	const sent = ended.message.content.filter((b: any) => b.type === "image");
	assert.equal(sent.length, 8);
	assert.equal(sent[0].data, whole);
	assert.deepEqual(sent[1], { type: "image", mimeType: "image/png", data: "", omittedBytes: 5 * MIB });
	const { messages } = await client.ok({ type: "get_messages" });
	const kept = messages.findLast((m: any) => m.role === "user").content.filter((b: any) => b.type === "image");
	assert.equal(kept[0].data, whole);
	assert.equal(kept.filter((b: any) => b.omittedBytes === 5 * MIB).length, 7);
});

test("limits: a ninth image, 5 MiB and a byte, a text declared as PNG, an empty body, a wrong type header", async () => {
	const id = (await typed.upload(new Uint8Array(png(100)), "image/png")).id;
	const nine = await client.request({ type: "prompt", message: "x", images: Array(9).fill({ type: "image", attachmentId: id }) });
	assert.equal(nine.code, "invalid_command");
	assert.match(nine.error!, /images/);
	const tooLarge = await post(png(5 * MIB + 1));
	assert.equal(tooLarge.status, 413);
	assert.match(tooLarge.body, /at most 5 MiB \(5242880 bytes\)/);
	const text = await post("hello, I am not a picture at all", { "Content-Type": "image/png" });
	assert.equal(text.status, 415);
	assert.match(text.body, /declared image\/png but its data does not start like an image/);
	const jpegAsPng = await post(Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(100)]));
	assert.equal(jpegAsPng.status, 415);
	assert.match(jpegAsPng.body, /starts like image\/jpeg/);
	assert.equal((await post(Buffer.alloc(0))).status, 400);
	const svg = await post("<svg/>", { "Content-Type": "image/svg+xml" });
	assert.equal(svg.status, 415);
	assert.match(svg.body, /Content-Type must be an image type/);
	assert.equal((await httpRequest(`${skiff.url}/attachments`, { headers: { Authorization: `Bearer ${TOKEN}` } })).status, 405);
	assert.deepEqual(readdirSync(uploadsDir), [id], "nothing refused was kept");
});

test("a bad token, or a cross-site page, cannot upload", async () => {
	const wrong = await post(png(100), { Authorization: "Bearer not-the-token" });
	assert.equal(wrong.status, 401);
	const crossSite = await post(png(100), { Origin: "http://evil.example" });
	assert.equal(crossSite.status, 403);
	const rejected = new SkiffClient({ url: skiff.wsUrl, token: "wrong", reconnect: false });
	await assert.rejects(rejected.upload(new Uint8Array(png(100)), "image/png"), (error: any) => error.code === "forbidden" && /unauthorized/.test(error.message));
});

test("an upload cut off before its end is not kept, and the service goes on", async () => {
	const before = new Set(readdirSync(uploadsDir));
	const { port, hostname } = new URL(skiff.url);
	const socket = connect(Number(port), hostname);
	await new Promise((resolve) => socket.once("connect", resolve));
	socket.write(`POST /attachments HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: image/png\r\nContent-Length: 100000\r\n\r\n`);
	socket.write(png(5000));
	await until(() => readdirSync(uploadsDir).some((name) => name.endsWith(".part")));
	socket.destroy();
	await until(() => readdirSync(uploadsDir).every((name) => before.has(name)));
	assert.equal((await typed.upload(new Uint8Array(png(100)), "image/png")).bytes, 100);
});

test("an unknown id refuses the message before anything is recorded; inline images still work beside uploads", async () => {
	const { messages } = await client.ok({ type: "get_messages" });
	const unknown = await client.request({ type: "prompt", message: "look", images: [{ type: "image", attachmentId: "0".repeat(32) }] });
	assert.equal(unknown.code, "not_found");
	assert.equal((await client.ok({ type: "get_messages" })).messages.length, messages.length, "nothing recorded");
	const malformed = await client.request({ type: "prompt", message: "look", images: [{ type: "image", attachmentId: "../../etc/passwd" }] });
	assert.equal(malformed.code, "invalid_command");
	const id = (await typed.upload(new Uint8Array(png(300, 3)), "image/png")).id;
	const inline = png(50, 4).toString("base64");
	const from = client.events.length;
	const asked = model.requests.length;
	await client.ok({ type: "prompt", message: "REPLY both\nboth kinds", images: [{ type: "image", data: inline, mimeType: "image/png" }, { type: "image", attachmentId: id }] });
	await runEnded(from);
	const urls = lastUserContent(asked).filter((part) => part.type === "image_url").map((part) => part.image_url.url);
	assert.deepEqual(urls, [`data:image/png;base64,${inline}`, `data:image/png;base64,${png(300, 3).toString("base64")}`]);
});

/**
 * get_image: the images a transcript sent without their data come back one per command, uploaded and inline
 * alike, 5 MiB ones too, from a session that is not loaded. A session of its own (so that it can be closed):
 * two 5 MiB uploads and a small inline image.
 */
let imageSession: Promise<{ sessionId: string; userEntry: string; answerEntry: string }> | undefined;
function imagesSent() {
	imageSession ??= (async () => {
		const sessionId = (await client.ok({ type: "new_session" })).sessionId as string;
		const ids = [];
		for (const fill of [1, 2]) ids.push((await typed.upload(new Uint8Array(png(5 * MIB, fill)), "image/png")).id);
		const from = client.events.length;
		const images = [{ type: "image", attachmentId: ids[0] }, { type: "image", data: png(40, 3).toString("base64"), mimeType: "image/png" }, { type: "image", attachmentId: ids[1] }];
		await client.ok({ type: "prompt", sessionId, message: "REPLY seen\nlook", images }, 60_000);
		await client.waitForEvent((e) => e.type === "agent_end" && e.sessionId === sessionId, 20_000, from);
		const { nodes } = await client.ok({ type: "get_tree", sessionId });
		return { sessionId, userEntry: nodes.find((n: any) => n.kind === "user").id, answerEntry: nodes.find((n: any) => n.kind === "assistant").id };
	})();
	return imageSession;
}

test("the images a transcript left out come back one per command, uploaded, inline and 5 MiB alike", async () => {
	const { sessionId, userEntry } = await imagesSent();
	const { messages } = await client.ok({ type: "get_messages", sessionId });
	const sent = messages.find((m: any) => m.role === "user").content.filter((b: any) => b.type === "image");
	assert.ok(sent.some((b: any) => b.omittedBytes === 5 * MIB), "the transcript left one out");
	for (const [index, image] of [png(5 * MIB, 1), png(40, 3), png(5 * MIB, 2)].entries()) {
		assert.deepEqual(await client.ok({ type: "get_image", sessionId, entryId: userEntry, index }, 30_000), { mimeType: "image/png", data: image.toString("base64") });
	}
	// The typed client has the method.
	assert.equal((await typed.call("get_image", { entryId: userEntry, index: 1 }, { sessionId })).data, png(40, 3).toString("base64"));
});

test("several asked at once all come, in turn, and the connection stays up", async () => {
	const { sessionId, userEntry } = await imagesSent();
	const answers = await Promise.all([0, 2, 0, 2].map((index) => client.ok({ type: "get_image", sessionId, entryId: userEntry, index }, 60_000)));
	assert.deepEqual(
		answers.map((a: any) => a.data.length),
		[0, 2, 0, 2].map(() => png(5 * MIB, 1).toString("base64").length),
	);
	assert.equal((await client.ok({ type: "get_state", sessionId })).isStreaming, false);
});

test("a client that stops reading while it asks for many images is not cut off: the next is built once the last has left", async () => {
	const { sessionId, userEntry } = await imagesSent();
	const reader = await TestClient.connect(skiff.wsUrl, { protocols: [`skiff-auth.${TOKEN}`] });
	try {
		const tcp = (reader.socket as unknown as { _socket: import("node:net").Socket })._socket;
		tcp.pause(); // six 5 MiB images are 40 MiB of base64: answered all at once, they would be beyond the 16 MiB a queue holds
		const asked = [0, 2, 0, 2, 0, 2].map((index) => reader.ok({ type: "get_image", sessionId, entryId: userEntry, index }, 60_000));
		await new Promise((resolve) => setTimeout(resolve, 1_500)); // what the service would queue meanwhile
		tcp.resume();
		const answers = await Promise.all(asked);
		assert.deepEqual(
			answers.map((a: any) => a.data.length),
			[1, 2, 1, 2, 1, 2].map((fill) => png(5 * MIB, fill).toString("base64").length),
		);
		assert.equal((await reader.ok({ type: "get_state", sessionId })).isStreaming, false, "still connected");
	} finally {
		reader.close();
	}
});

test("refusals: an unknown entry, an answer, an index past the images, bad fields, an unknown session", async () => {
	const { sessionId, userEntry, answerEntry } = await imagesSent();
	const refusal = async (command: Record<string, unknown>) => {
		const response = await client.request({ type: "get_image", sessionId, ...command });
		assert.equal(response.success, false, JSON.stringify(command));
		return { code: response.code, error: response.error };
	};
	const unknown = await refusal({ entryId: "nope1234", index: 0 });
	assert.equal(unknown.code, "not_found");
	assert.match(unknown.error!, /Unknown entry nope1234/);
	const answer = await refusal({ entryId: answerEntry, index: 0 });
	assert.equal(answer.code, "invalid_command");
	assert.match(answer.error!, /is not a user message or tool result/);
	const past = await refusal({ entryId: userEntry, index: 3 });
	assert.equal(past.code, "invalid_command");
	assert.match(past.error!, /`index` 3 is past the 3 image\(s\)/);
	for (const bad of [{ entryId: userEntry, index: -1 }, { entryId: userEntry, index: 1.5 }, { entryId: "", index: 0 }, { entryId: userEntry }, { entryId: userEntry, index: 0, extra: 1 }]) {
		assert.equal((await refusal(bad)).code, "invalid_command", JSON.stringify(bad));
	}
	const response = await client.request({ type: "get_image", sessionId: "f".repeat(36), entryId: userEntry, index: 0 });
	assert.equal(response.success, false);
});

test("a session that is not loaded is read from its file", async () => {
	const { sessionId, userEntry } = await imagesSent();
	await client.ok({ type: "close_session", sessionId });
	assert.deepEqual(await client.ok({ type: "get_image", sessionId, entryId: userEntry, index: 2 }, 30_000), { mimeType: "image/png", data: png(5 * MIB, 2).toString("base64") });
});

test("a tool's result's images (pi's read tool opening PNG files): the transcript leaves out what it cannot carry, get_image gives it by the result's entry", async () => {
	// Two pictures of about 4.3 MiB of base64 each (under the 4.5 MiB pi's read tool passes on as they are): a transcript
	// carries 8 MiB of images, the newest first, so the first result's goes without its data.
	const pictures = [grainyPng(1500, 1000, 0), grainyPng(1500, 1000, 1)];
	pictures.forEach((picture, n) => writeFileSync(join(cwd, `shot${n}.png`), picture));
	const sessionId = (await client.ok({ type: "new_session" })).sessionId as string;
	const from = client.events.length;
	await client.ok({ type: "prompt", sessionId, message: 'CALL read {"path":"shot0.png"}\nCALL read {"path":"shot1.png"}\nlook at both' });
	await client.waitForEvent((e) => e.type === "agent_end" && e.sessionId === sessionId, 30_000, from);
	const results = (await client.ok({ type: "get_messages", sessionId })).messages.filter((m: any) => m.role === "toolResult");
	const images = results.map((m: any) => m.content.find((b: any) => b.type === "image"));
	assert.deepEqual(images.map((i: any) => [i.mimeType, i.omittedBytes, i.data.length]), [["image/png", pictures[0]!.length, 0], ["image/png", undefined, Math.ceil(pictures[1]!.length / 3) * 4]]);
	const { nodes } = await client.ok({ type: "get_tree", sessionId });
	const entries = results.map((m: any) => nodes.find((n: any) => n.kind === "toolResult" && n.toolCallId === m.toolCallId).id);
	for (const [n, entryId] of entries.entries()) {
		assert.deepEqual(await client.ok({ type: "get_image", sessionId, entryId, index: 0 }, 30_000), { mimeType: "image/png", data: pictures[n]!.toString("base64") });
	}
	const past = await client.request({ type: "get_image", sessionId, entryId: entries[0], index: 1 });
	assert.equal(past.code, "invalid_command");
	assert.match(past.error!, /`index` 1 is past the 1 image\(s\)/);
});
