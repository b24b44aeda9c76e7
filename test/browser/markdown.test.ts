/** Markdown in the page, at desktop and phone sizes: formatted while a reply streams, and after it ends. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Page } from "playwright-core";
import { type ChatPage, openChatPage } from "../support/browser.js";

const FILLER = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");

const REPLY = [
	"# Main title",
	"Some **bold text** and *emphasis* with `inline code` here.",
	"## Plan of work",
	"1. first step\n2. second step\n- a bullet after the numbers\n- another bullet\n  - nested bullet",
	"> a quoted line",
	"| name | value | a rather long column heading | another long column heading | and one more |\n|------|-------|---|---|---|\n| alpha | 1 | some cell text here | more cell text here | the last cell |",
	"```ts\nconst answer = 42;\n```",
	"[a link](https://example.com/docs_(v2)) and <b>raw html</b> and ~~struck~~.",
	`Final paragraph that keeps the stream going: ${FILLER}.`,
].join("\n\n");

/** Delay after every word-sized delta of the reply: long enough to look at the page mid-stream. */
const SLOW_MS = 30;

let chat: ChatPage;
let page: Page;

before(async () => {
	chat = await openChatPage({ args: ["--model", "fake/fake-model"], viewport: { width: 1400, height: 900 } });
	({ page } = chat);
});

after(() => chat?.close());

/** Records, on every DOM change, raw markdown markers that show in the streaming reply. */
async function watchForRawMarkers(): Promise<void> {
	await page.evaluate(() => {
		const seen: string[] = [];
		(window as unknown as { __rawMarkers: string[] }).__rawMarkers = seen;
		new MutationObserver(() => {
			const text = document.querySelector(".msg.assistant.streaming .md")?.textContent ?? "";
			for (const marker of ["**", "## ", "# ", "```", "~~"]) if (text.includes(marker)) seen.push(`${marker} in …${text.slice(-60)}`);
		}).observe(document.body, { subtree: true, childList: true, characterData: true });
	});
}

/** Streams REPLY, checks it mid-stream and at the end; returns the table wrapper's widths. */
async function streamReplyAndCheck(): Promise<{ scroll: number; client: number }> {
	await watchForRawMarkers();
	await page.fill("textarea", `REPLY_JSON ${JSON.stringify(REPLY)}\nSLOW ${SLOW_MS}`);
	await page.keyboard.press("Enter");

	// While it streams: headings and both lists are already elements, in the message that is still streaming.
	await page.waitForSelector(".msg.assistant.streaming .md ol + ul > li > ul > li", { timeout: 30_000 });
	const mid = await page.evaluate(() => {
		const md = document.querySelector(".msg.assistant.streaming .md")!;
		return {
			h3: md.querySelector("h3.md-h1")?.textContent,
			h4: md.querySelector("h4.md-h2")?.textContent,
			strong: md.querySelector("p strong")?.textContent,
			em: md.querySelector("p em")?.textContent,
			code: md.querySelector("p code")?.textContent,
			ol: md.querySelectorAll("ol > li").length,
			// (No named helper functions in here: the test's compiler would wrap them in a helper the page lacks.)
			sizes: ["h3", "h4", "p"].map((selector) => Number.parseFloat(getComputedStyle(md.querySelector(selector)!).fontSize)),
			// Where the heading sits in its reply (the page scrolls as the reply grows, so not on the screen).
			headingTop: md.querySelector("h4")!.getBoundingClientRect().top - md.getBoundingClientRect().top,
		};
	});
	assert.equal(mid.h3, "Main title");
	assert.equal(mid.h4, "Plan of work");
	assert.equal(mid.strong, "bold text");
	assert.equal(mid.em, "emphasis");
	assert.equal(mid.code, "inline code");
	assert.equal(mid.ol, 2);
	const [h3, h4, p] = mid.sizes as [number, number, number];
	assert.ok(h3 > h4 && h4 > p, `heading sizes ${mid.sizes.join(" > ")}`);

	await page.waitForSelector(".msg.assistant.streaming", { state: "detached", timeout: 30_000 });
	assert.deepEqual(await page.evaluate(() => (window as unknown as { __rawMarkers: string[] }).__rawMarkers), [], "raw markers showed while streaming");

	// After it ends: the same structure, in the same place, and the rest of the reply formatted.
	const reply = page.locator(".msg.assistant").last();
	const md = reply.locator(".md");
	assert.equal(await md.locator("h4").evaluate((el) => el.getBoundingClientRect().top - el.closest(".md")!.getBoundingClientRect().top), mid.headingTop, "the heading did not move when the reply ended");
	assert.deepEqual(await md.locator(":scope > ol > li").allTextContents(), ["first step", "second step"]);
	assert.equal(await md.locator(":scope > ul > li").count(), 2);
	assert.equal(await md.locator(":scope > ul > li > ul > li").textContent(), "nested bullet");
	assert.equal(await md.locator("blockquote").textContent(), "a quoted line");
	assert.equal(await md.locator(".table-wrap > table th").count(), 5);
	assert.equal(await md.locator(".code .tok-keyword").first().textContent(), "const");
	assert.equal(await md.locator(".code button.copy").count(), 1);
	const link = md.locator("a");
	assert.equal(await link.getAttribute("href"), "https://example.com/docs_(v2)");
	assert.equal(await link.getAttribute("rel"), "noopener noreferrer");
	assert.equal(await md.locator("b").count(), 0);
	assert.match((await md.textContent())!, /<b>raw html<\/b>/);
	assert.equal(await md.locator("del").textContent(), "struck");
	assert.match((await md.locator("p").last().textContent())!, /word39\.$/);

	// Nothing in the reply is wider than the window; the table scrolls inside its wrapper if it must.
	const widths = await md.evaluate((el) => ({ right: el.getBoundingClientRect().right, window: window.innerWidth }));
	assert.ok(widths.right <= widths.window, `markdown reaches ${widths.right}px of ${widths.window}px`);
	const wrap = await md.locator(".table-wrap").evaluate((el) => ({ overflowX: getComputedStyle(el).overflowX, scroll: el.scrollWidth, client: el.clientWidth }));
	assert.equal(wrap.overflowX, "auto");
	return wrap;
}

test("desktop (1400×900): a streamed markdown reply is formatted while it streams and after", async () => {
	await streamReplyAndCheck();
});

test("phone (390×844): the same, and a wide table scrolls sideways inside the message", async () => {
	await page.setViewportSize({ width: 390, height: 844 });
	const wrap = await streamReplyAndCheck();
	assert.ok(wrap.scroll > wrap.client, `the table (${wrap.scroll}px) scrolls in its ${wrap.client}px wrapper`);
});
