/**
 * The installable page's routes beside /web (the manifest, its icon, the service worker) and new_session's check
 * of a project folder: served without a token even where the service wants one (like /web: no data), under the
 * page's strict headers; the manifest names everything an install needs and its icons are served; a folder that
 * does not exist, is a file or is too long is refused with the reason, and a session started in another folder
 * is recorded there.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { httpRequest } from "../support/http.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { TestClient } from "../support/ws-client.js";

let model: FakeOpenAiServer;
let skiff: SkiffProcess;
const TOKEN = "web-app-test-token-0123456789";

before(async () => {
	model = await startFakeOpenAi();
	const agentDir = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	const tokenFile = join(tempDir(), "token");
	writeFileSync(tokenFile, TOKEN);
	chmodSync(tokenFile, 0o600);
	skiff = await startSkiff({ agentDir, cwd: tempDir(), args: ["--model", "fake/fake-model", "--listen-token-file", tokenFile] });
});

after(async () => {
	await skiff?.stop();
	await model?.close();
});

const FILES = [
	["/web/manifest.webmanifest", /^application\/manifest\+json/],
	["/web/icon.svg", /^image\/svg\+xml/],
	["/web/sw.js", /^text\/javascript/],
] as const;

test("the manifest, icon and worker need no token, carry the page's strict headers, and answer 304, HEAD and 405", async () => {
	assert.equal((await httpRequest(`${skiff.url}/web`)).status, 200);
	assert.equal((await httpRequest(`${skiff.url}/rpc`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status, 401, "the service wants a token");
	for (const [path, type] of FILES) {
		const answer = await httpRequest(`${skiff.url}${path}`);
		assert.equal(answer.status, 200, path);
		assert.match(String(answer.headers["content-type"]), type, path);
		// The worker may fetch from this origin (the page, when it is opened); nothing else may load anything.
		const connect = path === "/web/sw.js" ? " connect-src 'self';" : "";
		assert.equal(answer.headers["content-security-policy"], `default-src 'none';${connect} style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`, path);
		assert.equal(answer.headers["x-content-type-options"], "nosniff", path);
		assert.equal(answer.headers["referrer-policy"], "no-referrer", path);
		assert.equal(answer.headers["x-frame-options"], "DENY", path);
		assert.doesNotMatch(answer.body, new RegExp(TOKEN), path);
		const etag = String(answer.headers.etag);
		assert.equal((await httpRequest(`${skiff.url}${path}`, { headers: { "If-None-Match": etag } })).status, 304, path);
		const head = await httpRequest(`${skiff.url}${path}`, { method: "HEAD" });
		assert.equal(head.status, 200);
		assert.equal(head.body, "");
		const post = await httpRequest(`${skiff.url}${path}`, { method: "POST" });
		assert.equal(post.status, 405, path);
		assert.equal(post.headers.allow, "GET, HEAD");
	}
	// The worker may control /web, outside its own folder.
	assert.equal((await httpRequest(`${skiff.url}/web/sw.js`)).headers["service-worker-allowed"], "/web");
	assert.equal((await httpRequest(`${skiff.url}/web/other.js`)).status, 404);
	// The host page may use its manifest and worker; its other rules are unchanged.
	const csp = String((await httpRequest(`${skiff.url}/web`)).headers["content-security-policy"]);
	assert.match(csp, /; manifest-src 'self'; worker-src 'self'; base-uri 'none'/);
	assert.match(csp, /^default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src ws:/);
});

test("the manifest has what an install needs, and its icons are served", async () => {
	const manifest = JSON.parse((await httpRequest(`${skiff.url}/web/manifest.webmanifest`)).body);
	assert.equal(manifest.name, "Skiff");
	assert.equal(manifest.short_name, "Skiff");
	assert.equal(manifest.start_url, "/web");
	assert.equal(manifest.scope, "/web");
	assert.equal(manifest.display, "standalone");
	assert.match(manifest.theme_color, /^#[0-9a-f]{6}$/);
	assert.match(manifest.background_color, /^#[0-9a-f]{6}$/);
	assert.ok(manifest.icons.length > 0);
	for (const icon of manifest.icons) {
		assert.equal(icon.sizes, "any", "a scalable icon serves every size");
		const answer = await httpRequest(new URL(icon.src, skiff.url).href);
		assert.equal(answer.status, 200, icon.src);
		assert.equal(String(answer.headers["content-type"]).split(";")[0], icon.type);
		assert.match(answer.body, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 24 24">/);
		assert.doesNotMatch(answer.body, /<script|href=/, "the icon runs and loads nothing");
	}
});

test("new_session refuses a folder that does not exist, is a file or is too long, saying so; another folder is recorded there", async () => {
	const client = await TestClient.connect(skiff.wsUrl, { protocols: [`skiff-auth.${TOKEN}`] });
	try {
		const root = tempDir();
		const file = join(root, "notes.txt");
		writeFileSync(file, "x");
		const refusals: Array<[unknown, RegExp]> = [
			[join(root, "missing"), /^cwd \/.*\/missing does not exist: it must be an existing, readable directory$/],
			[file, /^cwd \/.*\/notes\.txt is a regular file, not a directory: it must be an existing, readable directory$/],
			[join(file, "below"), /does not exist \(a part of it is a file\)/],
			["", /cwd/],
			[`/${"a".repeat(5000)}`, /cwd/],
			[42, /cwd/],
		];
		for (const [cwd, reason] of refusals) {
			const answer = await client.request({ type: "new_session", cwd });
			assert.equal(answer.success, false, String(cwd).slice(0, 80));
			assert.match(String(answer.error), reason);
		}
		assert.equal((await client.ok({ type: "ping" })) !== undefined, true, "the service still answers");

		const second = join(root, "second project");
		mkdirSync(second);
		const created = await client.ok({ type: "new_session", cwd: second });
		assert.equal(created.state.cwd, second);
		await client.ok({ type: "subscribe", sessionId: created.sessionId });
		await client.turn(created.sessionId, "REPLY recorded there\nhello from the second project");
		const { sessions } = await client.ok({ type: "session_list", scope: "all" });
		const row = sessions.find((s: { sessionId: string }) => s.sessionId === created.sessionId);
		assert.equal(realpathSync(String(row.cwd)), realpathSync(second));
		assert.ok(row.path, "recorded on disk");
	} finally {
		client.close();
	}
});
