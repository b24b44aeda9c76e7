/**
 * A session exported and opened from disk, in Chromium: no response header reaches a saved file, so the page
 * must carry its own policy (a Content-Security-Policy <meta> before anything that loads) and its text must be
 * redacted as the web page's is. A reply with remote markdown images (one with a key in its URL) and secrets in
 * its text and in a tool's output: the downloaded page, the page `export_html` writes into the project and the
 * JSONL download hold no secret, and the page opened as file:// makes no request at all (the image server, on
 * loopback, counts what reaches it).
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { type ChatService, launchBrowser, startChatService } from "../support/browser.js";
import { httpRequest } from "../support/http.js";
import { tempDir } from "../support/skiff-process.js";
import { TestClient } from "../support/ws-client.js";

const API_KEY = "sk-proj0123456789abcdefghijKLMN";
const GITHUB_TOKEN = `ghp_${"a1B2c3D4e5".repeat(3)}f6G7h8`;
const AWS_KEY = "AKIAIOSFODNN7EXAMPLE";
const SECRETS = [API_KEY, GITHUB_TOKEN, AWS_KEY];

let browser: Browser;
let service: ChatService;
let images: Server;
/** Paths the image server was asked for: any is a request the page should never have made. */
const hits: string[] = [];
let sessionId: string;

before(async () => {
	images = createServer((request, response) => {
		hits.push(request.url ?? "");
		response.writeHead(200, { "content-type": "image/gif" });
		response.end(Buffer.from("R0lGODlhAQABAAAAACw=", "base64"));
	});
	await new Promise<void>((resolve) => images.listen(0, "127.0.0.1", resolve));
	const origin = `http://127.0.0.1:${(images.address() as { port: number }).port}`;
	browser = await launchBrowser();
	service = await startChatService();
	const client = await TestClient.connect(service.skiff.wsUrl);
	({ sessionId } = await client.ok({ type: "new_session" }));
	const reply = `Here is the chart ![chart](${origin}/chart.png?api_key=${API_KEY}) and our logo ![logo](${origin}/logo.png). The deploy token is ${GITHUB_TOKEN}.`;
	const from = client.events.length;
	await client.ok({ type: "prompt", sessionId, message: `REPLY_JSON ${JSON.stringify(reply)}\nRUN echo "aws ${AWS_KEY}"\nAFTER_TOOL Checked the key.` });
	await client.waitForEvent((e) => e.type === "agent_end", 20_000, from);
	client.close();
});

after(async () => {
	await browser?.close();
	await service?.close();
	await new Promise<void>((resolve) => images.close(() => resolve()));
});

/** The session pi's page embeds (base64 JSON in one script element). */
function embeddedSession(html: string): string {
	const data = /<script id="session-data" type="application\/json">([A-Za-z0-9+/=]+)<\/script>/.exec(html);
	assert.ok(data, "the page embeds the session");
	return Buffer.from(data[1]!, "base64").toString("utf8");
}

/** A page safe to keep: its policy first in <head>, before anything that loads, and no secret anywhere in it. */
function assertSealed(html: string): void {
	const meta = html.indexOf('<meta http-equiv="Content-Security-Policy"');
	assert.ok(meta > 0, "the page carries its policy");
	const head = html.slice(0, html.indexOf("</head>"));
	const firstLoader = head.search(/<(style|script|link|img|base|iframe|object|embed)\b/i);
	assert.ok(firstLoader === -1 || meta < firstLoader, "the policy comes before anything that could load");
	assert.ok(meta < html.indexOf("<meta charset") + 200 || meta < 512, "the policy is at the top of <head>");
	const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)![1]!;
	for (const part of ["default-src 'none'", "img-src data:", "base-uri 'none'", "form-action 'none'"]) assert.ok(policy.includes(part), part);
	assert.doesNotMatch(policy, /https?:|\*/, "nothing remote is allowed");
	const session = embeddedSession(html);
	for (const secret of SECRETS) {
		assert.ok(!html.includes(secret), `${secret} is not in the page`);
		assert.ok(!session.includes(secret), `${secret} is not in the embedded session`);
	}
	assert.match(session, /\[REDACTED\]/);
	assert.match(session, /logo\.png/, "the reply is there, only its secrets masked");
}

test("the downloaded page carries its own policy and no secret, and opened from disk it requests nothing", async () => {
	const download = await httpRequest(`${service.skiff.url}/export/${sessionId}.html`);
	assert.equal(download.status, 200, download.body);
	assertSealed(download.body);
	const file = join(tempDir(), "saved.html");
	writeFileSync(file, download.body);

	const context = await browser.newContext();
	// Every request the page starts is logged; the ones that would go out pass through the route (interception),
	// so a request refused by the page's policy is logged as failed ("csp") and never routed.
	const started: string[] = [];
	const refused: string[] = [];
	const routed: string[] = [];
	context.on("request", (request) => started.push(request.url()));
	context.on("requestfailed", (request) => {
		if (request.failure()?.errorText === "csp") refused.push(request.url());
	});
	await context.route("**/*", (route) => {
		routed.push(route.request().url());
		return route.continue();
	});
	const page = await context.newPage();
	const url = pathToFileURL(file).href;
	await page.goto(url);
	// pi's script ran under the policy and rendered the reply, images included (as elements that never load).
	await page.waitForSelector('img[alt="logo"]', { state: "attached" });
	assert.match((await page.textContent("#messages"))!, /The deploy token is \[REDACTED\]/);
	assert.deepEqual(routed, [url], "only the page itself was fetched");
	assert.deepEqual(hits, [], "nothing reached the image server");
	assert.ok(refused.some((uri) => uri.endsWith("/logo.png")), `the policy refused the remote image: ${JSON.stringify(started)}`);
	assert.deepEqual(
		started.filter((uri) => uri !== url && !refused.includes(uri)),
		[],
		"every other request the page started was refused by its policy",
	);
	await context.close();
});

test("export_html writes the same sealed page into the project", async () => {
	const client = await TestClient.connect(service.skiff.wsUrl);
	const { path } = await client.ok({ type: "export_html", sessionId, outputPath: "kept.html" });
	client.close();
	assert.equal(path, join(service.cwd, "kept.html"));
	assertSealed(readFileSync(path, "utf8"));
});

test("the JSONL download is the session with its secrets masked, every line still JSON", async () => {
	const download = await httpRequest(`${service.skiff.url}/export/${sessionId}.jsonl`);
	assert.equal(download.status, 200, download.body);
	for (const secret of SECRETS) assert.ok(!download.body.includes(secret), `${secret} is not in the JSONL`);
	assert.match(download.body, /\[REDACTED\]/);
	const lines = download.body.split("\n").filter(Boolean);
	for (const line of lines) JSON.parse(line);
	assert.equal(Number(download.headers["content-length"]), Buffer.byteLength(download.body));
	const { sessionFile } = await (async () => {
		const client = await TestClient.connect(service.skiff.wsUrl);
		const state = await client.ok({ type: "get_state", sessionId });
		client.close();
		return state;
	})();
	assert.equal(lines.length, readFileSync(sessionFile, "utf8").split("\n").filter(Boolean).length, "every entry is there");
});
