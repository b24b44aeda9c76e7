/**
 * GET /export/<sessionId>.html and .jsonl: the session as a download, with the same authentication, origin and
 * host rules as /rpc (plus the ones a GET needs), attachment headers and a sandboxing policy; clear statuses for
 * a session not recorded yet, an unknown one, and malformed requests.
 */
import assert from "node:assert/strict";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { after, before, test } from "node:test";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { httpRequest } from "../support/http.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { TestClient } from "../support/ws-client.js";

let model: FakeOpenAiServer;
let open: SkiffProcess;
let guarded: SkiffProcess;
const TOKEN = "export-test-token-0123456789";

before(async () => {
	model = await startFakeOpenAi();
	const agentDir = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	open = await startSkiff({ agentDir, cwd: tempDir(), args: ["--model", "fake/fake-model"] });
	const guardedDir = tempDir();
	writeFakeModelsJson(guardedDir, model.url);
	const tokenFile = join(tempDir(), "token");
	writeFileSync(tokenFile, TOKEN);
	chmodSync(tokenFile, 0o600);
	guarded = await startSkiff({ agentDir: guardedDir, cwd: tempDir(), args: ["--model", "fake/fake-model", "--listen-token-file", tokenFile] });
});

after(async () => {
	await open?.stop();
	await guarded?.stop();
	await model?.close();
});

async function recordedSession(skiff: SkiffProcess, protocols: string[] = []): Promise<{ sessionId: string; sessionFile: string }> {
	const client = await TestClient.connect(skiff.wsUrl, { protocols });
	const { sessionId } = await client.ok({ type: "new_session" });
	const from = client.events.length;
	await client.ok({ type: "prompt", sessionId, message: "REPLY exported reply" });
	await client.waitForEvent((e) => e.type === "agent_end", 20_000, from);
	const { sessionFile } = await client.ok({ type: "get_state", sessionId });
	client.close();
	return { sessionId, sessionFile };
}

test("the JSONL download is the session file, as an attachment that is never cached or sniffed", async () => {
	const { sessionId, sessionFile } = await recordedSession(open);
	const response = await httpRequest(`${open.url}/export/${sessionId}.jsonl`);
	assert.equal(response.status, 200, response.body);
	assert.equal(response.body, readFileSync(sessionFile, "utf8"));
	assert.equal(response.headers["content-type"], "application/x-ndjson; charset=utf-8");
	assert.equal(response.headers["content-disposition"], `attachment; filename="skiff-session-${sessionId}.jsonl"`);
	assert.equal(response.headers["cache-control"], "no-store");
	assert.equal(response.headers["x-content-type-options"], "nosniff");
	assert.equal(response.headers["cross-origin-resource-policy"], "same-origin");
	assert.match(String(response.headers["content-security-policy"]), /default-src 'none'.*sandbox/);
	assert.equal(Number(response.headers["content-length"]), Buffer.byteLength(response.body));
	const head = await httpRequest(`${open.url}/export/${sessionId}.jsonl`, { method: "HEAD" });
	assert.equal(head.status, 200);
	assert.equal(head.body, "");
});

test("the HTML download is pi's standalone page under a strict, sandboxing policy", async () => {
	const { sessionId } = await recordedSession(open);
	const response = await httpRequest(`${open.url}/export/${sessionId}.html`);
	assert.equal(response.status, 200, response.body);
	assert.match(response.body, /^<!DOCTYPE html>/i);
	const data = /<script id="session-data" type="application\/json">([A-Za-z0-9+/=]+)<\/script>/.exec(response.body);
	assert.ok(data, "the page embeds the session");
	assert.match(Buffer.from(data[1]!, "base64").toString("utf8"), /exported reply/);
	assert.equal(response.headers["content-type"], "text/html; charset=utf-8");
	assert.equal(response.headers["content-disposition"], `attachment; filename="skiff-session-${sessionId}.html"`);
	const policy = String(response.headers["content-security-policy"]);
	for (const part of ["default-src 'none'", "sandbox allow-scripts", "frame-ancestors 'none'", "form-action 'none'"]) assert.ok(policy.includes(part), part);
	assert.ok(!policy.includes("allow-same-origin"), "the page gets an opaque origin");
});

test("a named session is saved and titled by its name, whatever characters the name holds", async () => {
	const client = await TestClient.connect(open.wsUrl);
	const { sessionId } = await recordedSession(open);
	const name = 'Décisions d\'API </script><script>alert(1)</script> / "v2"';
	await client.ok({ type: "set_session_name", sessionId, name });
	const written = await client.ok({ type: "export_html", sessionId });
	assert.equal(basename(written.path), `Décisions d'API -script-script-alert(1)-script- - -v2-.html`, "export_html's default name is the session's too");
	client.close();
	const html = await httpRequest(`${open.url}/export/${sessionId}.html`);
	assert.equal(html.status, 200, html.body);
	assert.equal(
		html.headers["content-disposition"],
		`attachment; filename="Decisions d-API -script-script-alert-1-script- - -v2.html"; filename*=UTF-8''D%C3%A9cisions%20d%27API%20-script-script-alert%281%29-script-%20-%20-v2-.html`,
	);
	assert.match(html.body, /<title>Décisions d&#39;API &#60;\/script&#62;&#60;script&#62;alert\(1\)&#60;\/script&#62; \/ &#34;v2&#34;<\/title>/);
	assert.ok(html.body.includes('${escapeHtml("Décisions d\'API \\u003c/script>\\u003cscript>alert(1)\\u003c/script> / \\"v2\\"")}'), "pi's heading shows the name");
	assert.ok(!html.body.includes("Session: ${escapeHtml(header?.id"), "the id heading is replaced");
	assert.ok(!html.body.includes("</script><script>alert(1)"), "the name ends no script element");
	const jsonl = await httpRequest(`${open.url}/export/${sessionId}.jsonl`);
	assert.match(String(jsonl.headers["content-disposition"]), /filename="Decisions d-API .*\.jsonl"; filename\*=UTF-8''D%C3%A9cisions/);
});

test("a session not recorded yet is a conflict, an unknown one 404, odd requests get plain refusals", async () => {
	const client = await TestClient.connect(open.wsUrl);
	const { sessionId } = await client.ok({ type: "new_session" });
	client.close();
	const fresh = await httpRequest(`${open.url}/export/${sessionId}.jsonl`);
	assert.equal(fresh.status, 409);
	assert.match(fresh.body, new RegExp(`Session ${sessionId} is not recorded yet, so there is nothing to export`));
	const unknown = await httpRequest(`${open.url}/export/no-such-session.html`);
	assert.equal(unknown.status, 404);
	assert.match(unknown.body, /Unknown session: no-such-session/);
	assert.equal((await httpRequest(`${open.url}/export/${sessionId}.pdf`)).status, 404);
	assert.equal((await httpRequest(`${open.url}/export/../rpc.jsonl`)).status, 404);
	const post = await httpRequest(`${open.url}/export/${sessionId}.jsonl`, { method: "POST" });
	assert.equal(post.status, 405);
	assert.equal(post.headers.allow, "GET, HEAD");
});

test("browser rules: another site, another origin and a DNS-rebinding Host are refused on a tokenless listener", async () => {
	const { sessionId } = await recordedSession(open);
	const url = `${open.url}/export/${sessionId}.jsonl`;
	const host = new URL(open.url).host;
	const port = new URL(open.url).port;
	const cases: Array<[Record<string, string>, number, RegExp]> = [
		[{ "sec-fetch-site": "cross-site" }, 403, /must come from this origin's own page/],
		[{ "sec-fetch-site": "same-site" }, 403, /must come from this origin's own page/],
		[{ origin: "http://evil.example" }, 403, /cross-origin request/],
		[{ host: `evil.example:${port}` }, 403, /serves downloads only at a loopback address/],
		[{ host: `evil.example:${port}`, origin: `http://evil.example:${port}` }, 403, /loopback/],
	];
	for (const [headers, status, pattern] of cases) {
		const response = await httpRequest(url, { headers });
		assert.equal(response.status, status, JSON.stringify(headers));
		assert.match(response.body, pattern);
	}
	const allowed: Array<Record<string, string>> = [{ "sec-fetch-site": "same-origin", origin: `http://${host}` }, { "sec-fetch-site": "none" }, { host: `localhost:${port}` }];
	for (const headers of allowed) {
		assert.equal((await httpRequest(url, { headers })).status, 200, JSON.stringify(headers));
	}
});

test("with a token file the download needs the bearer token; failures count like /rpc's", async () => {
	const { sessionId, sessionFile } = await recordedSession(guarded, [`skiff-auth.${TOKEN}`]);
	const url = `${guarded.url}/export/${sessionId}.jsonl`;
	const missing = await httpRequest(url);
	assert.equal(missing.status, 401);
	assert.match(missing.body, /unauthorized/);
	assert.equal((await httpRequest(url, { headers: { authorization: "Bearer wrong-token" } })).status, 401);
	const ok = await httpRequest(url, { headers: { authorization: `Bearer ${TOKEN}` } });
	assert.equal(ok.status, 200);
	assert.equal(ok.body, readFileSync(sessionFile, "utf8"));
	assert.match(guarded.stderr(), /authentication failed from 127\.0\.0\.1 on \/export: 401/);
	assert.ok(!guarded.stderr().includes("wrong-token"));
});
