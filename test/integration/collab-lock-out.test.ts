/**
 * Issue 20's lock-out, against the real service at its real limits: behind a TLS proxy every client has one
 * address (here all of them come from 127.0.0.1), and a full minute's worth of failed collaboration joins
 * from it used to keep the host out of its own /rpc and /ws, and valid guests out of the room, for a minute.
 * Now the guesser's joins get 429 and nobody else notices.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { AUTH_FAILURES_PER_WINDOW } from "../../src/listener/limits.js";
import { guestSubprotocol } from "../../src/shared/collab-wire.js";
import { RawGuest } from "../support/collab-guest.js";
import { postRpc } from "../support/http.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { TestClient } from "../support/ws-client.js";

const TOKEN = "collab-lock-out-test-token-0123456789";

let skiff: SkiffProcess;
let host: TestClient;

before(async () => {
	const tokenFile = join(tempDir(), "token");
	writeFileSync(tokenFile, TOKEN, { mode: 0o600 });
	skiff = await startSkiff({ agentDir: tempDir(), args: ["--listen-token-file", tokenFile] });
	host = await TestClient.connect(skiff.wsUrl, { protocols: [`skiff-auth.${TOKEN}`] });
});
after(async () => {
	host?.close();
	await skiff?.stop();
});

/** The HTTP status a guest's upgrade with a wrong capability gets. */
async function wrongJoin(link: string): Promise<number> {
	const protocols = [guestSubprotocol(randomBytes(32), randomBytes(16))];
	const guest = await RawGuest.connect(link, { protocols }).catch((error: { status?: number }) => error);
	if (guest instanceof RawGuest) guest.socket.terminate();
	return guest instanceof RawGuest ? 101 : (guest.status ?? -1);
}

test("a minute's worth of failed joins from the host's own address keeps out neither the host nor a valid guest", async () => {
	const room = await host.ok({ type: "collab_start" });
	for (let i = 0; i < AUTH_FAILURES_PER_WINDOW; i++) assert.equal(await wrongJoin(room.controlLink), 401);
	assert.equal(await wrongJoin(room.viewLink), 429, "the guesser is throttled");

	assert.equal((await postRpc(skiff.url, { type: "ping" }, { authorization: `Bearer ${TOKEN}` })).status, 200, "the host's /rpc");
	(await TestClient.connect(skiff.wsUrl, { protocols: [`skiff-auth.${TOKEN}`] })).close();
	const guest = await RawGuest.join(room.viewLink);
	assert.equal(guest.messages[0]?.type, "collab_snapshot", "a valid guest joins");
	guest.socket.close();

	assert.match(skiff.stderr(), /127\.0\.0\.1 failed collaboration authentication \d+ times within 60 s \(the last on \/collab\)/);
	assert.doesNotMatch(skiff.stderr(), new RegExp(`${TOKEN}|skiff-collab-v1|${room.controlLink.split("#")[1]}`));
});
