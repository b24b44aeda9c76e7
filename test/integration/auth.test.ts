/** The authentication and origin matrix of docs/security.md, against the real listener. */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { httpRequest, postRpc } from "../support/http.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { TestClient } from "../support/ws-client.js";

const TOKEN = "Zq7-token_for.tests~1";

/** Opens /ws with these headers/protocols; resolves with the chosen subprotocol or rejects with the HTTP status. */
async function openWs(url: string, options: { protocols?: string[]; headers?: Record<string, string> } = {}): Promise<string> {
	const client = await TestClient.connect(url, options);
	const protocol = client.socket.protocol;
	client.close();
	return protocol;
}

async function wsStatus(url: string, options: { protocols?: string[]; headers?: Record<string, string> } = {}): Promise<number> {
	try {
		await openWs(url, options);
		return 101;
	} catch (error) {
		return (error as { status?: number }).status ?? -1;
	}
}

const hostOf = (url: string) => new URL(url).host;

describe("tokenless loopback listener", () => {
	let skiff: SkiffProcess;
	before(async () => {
		skiff = await startSkiff({ agentDir: tempDir() });
	});
	after(() => skiff.stop());

	test("native clients (no Origin) are accepted on /ws and /rpc", async () => {
		assert.equal(await wsStatus(skiff.wsUrl), 101);
		assert.equal((await postRpc(skiff.url, { type: "ping" })).status, 200);
	});

	test("a same-origin loopback page is accepted", async () => {
		const host = hostOf(skiff.url);
		assert.equal(await wsStatus(skiff.wsUrl, { headers: { Origin: `http://${host}` } }), 101);
		assert.equal((await postRpc(skiff.url, { type: "ping" }, { Origin: `http://${host}` })).status, 200);
		const port = new URL(skiff.url).port;
		const viaName = { Origin: `http://localhost:${port}`, Host: `localhost:${port}` };
		assert.equal(await wsStatus(skiff.wsUrl, { headers: viaName }), 101);
		assert.equal((await postRpc(skiff.url, { type: "ping" }, viaName)).status, 200);
	});

	test("cross-site pages, DNS rebinding, null and file origins are refused with 403 before any upgrade", async () => {
		const port = new URL(skiff.url).port;
		const refused: Array<Record<string, string>> = [
			{ Origin: "http://evil.example" },
			{ Origin: `http://evil.example:${port}`, Host: `evil.example:${port}` }, // rebinding: Origin == Host, not loopback
			{ Origin: "null" },
			{ Origin: "file://" },
			{ Origin: `http://127.0.0.1:${Number(port) + 1}` }, // another local port is another origin
		];
		for (const headers of refused) {
			assert.equal(await wsStatus(skiff.wsUrl, { headers }), 403, JSON.stringify(headers));
			const rpc = await postRpc(skiff.url, { type: "ping" }, headers);
			assert.equal(rpc.status, 403, JSON.stringify(headers));
			assert.match(rpc.headers["content-type"] as string, /text\/plain/);
			assert.ok(rpc.body.trim().length > 0, "a short reason is given");
		}
	});

	test("a stale token offered to a tokenless listener still connects", async () => {
		assert.equal(await openWs(skiff.wsUrl, { protocols: ["skiff-auth.old-token"] }), "skiff-auth.old-token");
	});

	test("/web is served without authentication and with security headers", async () => {
		const page = await httpRequest(`${skiff.url}/web`, { headers: { Origin: "http://evil.example" } });
		assert.equal(page.status, 200);
		assert.match(page.headers["content-type"] as string, /text\/html/);
		assert.match(page.headers["content-security-policy"] as string, /frame-ancestors 'none'/);
		assert.equal(page.headers["x-content-type-options"], "nosniff");
		assert.equal(page.headers["referrer-policy"], "no-referrer");
	});
});

describe("token-protected loopback listener", () => {
	let skiff: SkiffProcess;
	before(async () => {
		const dir = tempDir();
		const file = join(dir, "token");
		writeFileSync(file, `\n  ${TOKEN}  \n`, { mode: 0o600 });
		skiff = await startSkiff({ agentDir: tempDir(), args: ["--listen-token-file", file] });
	});
	after(() => skiff.stop());

	test("requests without a token get 401", async () => {
		assert.equal(await wsStatus(skiff.wsUrl), 401);
		const rpc = await postRpc(skiff.url, { type: "ping" });
		assert.equal(rpc.status, 401);
		assert.doesNotMatch(rpc.body, new RegExp(TOKEN));
	});

	test("the bearer header works on /ws and /rpc; wrong, empty and spaced tokens do not", async () => {
		assert.equal(await wsStatus(skiff.wsUrl, { headers: { Authorization: `Bearer ${TOKEN}` } }), 101);
		assert.equal((await postRpc(skiff.url, { type: "ping" }, { Authorization: `Bearer ${TOKEN}` })).status, 200);
		assert.equal((await postRpc(skiff.url, { type: "ping" }, { Authorization: `bearer ${TOKEN}` })).status, 200);
		for (const value of [`Bearer ${TOKEN}x`, "Bearer ", "Bearer", `Bearer ${TOKEN} extra`, `Basic ${TOKEN}`, TOKEN, `Bearer ${TOKEN.slice(0, -1)}`]) {
			const rpc = await postRpc(skiff.url, { type: "ping" }, { Authorization: value });
			assert.equal(rpc.status, 401, value);
			assert.doesNotMatch(rpc.body, new RegExp(TOKEN.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
			assert.equal(await wsStatus(skiff.wsUrl, { headers: { Authorization: value } }), 401, value);
		}
	});

	test("the subprotocol token: the first matching offer is echoed exactly", async () => {
		assert.equal(await openWs(skiff.wsUrl, { protocols: [`skiff-auth.${TOKEN}`] }), `skiff-auth.${TOKEN}`);
		const offered = ["chat", "skiff-auth.wrong", `skiff-auth.${TOKEN}`];
		assert.equal(await openWs(skiff.wsUrl, { protocols: offered }), `skiff-auth.${TOKEN}`);
		assert.equal(await wsStatus(skiff.wsUrl, { protocols: ["skiff-auth.wrong"] }), 401);
		assert.equal(await wsStatus(skiff.wsUrl, { protocols: ["skiff-auth."] }), 401);
		assert.equal(await wsStatus(skiff.wsUrl, { protocols: [`SKIFF-AUTH.${TOKEN}`] }), 401);
	});

	test("a page from another origin cannot use the token", async () => {
		const headers = { Origin: "http://evil.example", Authorization: `Bearer ${TOKEN}` };
		assert.equal((await postRpc(skiff.url, { type: "ping" }, headers)).status, 403);
		assert.equal(await wsStatus(skiff.wsUrl, { protocols: [`skiff-auth.${TOKEN}`], headers: { Origin: "http://evil.example" } }), 403);
		const same = { Origin: `http://${hostOf(skiff.url)}` };
		assert.equal(await wsStatus(skiff.wsUrl, { protocols: [`skiff-auth.${TOKEN}`], headers: same }), 101);
	});

	test("/web still needs no token", async () => {
		assert.equal((await httpRequest(`${skiff.url}/web`)).status, 200);
	});
});

describe("tokenless non-loopback listener (plaintext opt-in)", () => {
	let skiff: SkiffProcess;
	before(async () => {
		skiff = await startSkiff({ agentDir: tempDir(), listen: "0.0.0.0:0", args: ["--listen-allow-insecure-remote"] });
	});
	after(() => skiff.stop());

	const local = () => skiff.url.replace("0.0.0.0", "127.0.0.1");

	test("Origin must equal Host; native clients pass", async () => {
		const wsUrl = `${local().replace("http", "ws")}/ws`;
		const host = hostOf(local());
		assert.equal(await wsStatus(wsUrl), 101);
		assert.equal(await wsStatus(wsUrl, { headers: { Origin: `http://${host}` } }), 101);
		assert.equal(await wsStatus(wsUrl, { headers: { Origin: "http://elsewhere.example" } }), 403);
		assert.equal((await postRpc(local(), { type: "ping" }, { Origin: "http://elsewhere.example" })).status, 403);
		const lanName = { Host: `workstation.lan:${new URL(local()).port}`, Origin: `http://workstation.lan:${new URL(local()).port}` };
		assert.equal((await postRpc(local(), { type: "ping" }, lanName)).status, 200, "same-origin by name is accepted off loopback");
	});
});
