/**
 * The page never shows a secret while it streams: every secret shape, streamed a few characters at a time as
 * the reply, the thinking, tool calls' arguments and tools' output (one key printed in two writes), is checked
 * after every change of the page (a MutationObserver looks at what the page shows of the run, markup and all).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Page } from "playwright-core";
import { type ChatPage, openChatPage, runPrompt } from "../support/browser.js";
import { LEAK_CHARS, leaks, printInTwoWrites, SECRET_SHAPES, SECRETS_LINE, SECRETS_REPLY } from "../support/secret-shapes.js";

let chat: ChatPage;
let page: Page;

before(async () => {
	chat = await openChatPage({ args: ["--model", "fake/fake-reasoner", "--thinking", "low"] });
	page = chat.page;
	// tsx compiles named functions inside page.evaluate callbacks with a `__name` helper the page lacks.
	await page.evaluate("globalThis.__name = (fn) => fn");
	// Every run of LEAK_CHARS characters of every secret; the page looks for them after each change it makes.
	const runs = SECRET_SHAPES.flatMap((shape) => shape.body.split("\n").flatMap((line) => [...line].map((_c, i) => line.slice(i, i + LEAK_CHARS)).filter((r) => r.length === LEAK_CHARS)));
	await page.evaluate(
		({ runs, size }) => {
			const secrets = new Set(runs);
			const seen = { checks: 0, leaks: [] as string[] };
			(window as unknown as { __seen: typeof seen }).__seen = seen;
			// What the page shows of runs: replies, thinking, tool cards (the user's own prompts are what they typed).
			const check = () => {
				seen.checks++;
				const shown = [...document.querySelectorAll(".msg:not(.user)")].map((m) => m.outerHTML).join("\n");
				for (let i = 0; i + size <= shown.length; i++) {
					if (secrets.has(shown.slice(i, i + size))) {
						seen.leaks.push(shown.slice(Math.max(0, i - 60), i + 40));
						return;
					}
				}
			};
			new MutationObserver(check).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
		},
		{ runs, size: LEAK_CHARS },
	);
});

after(() => chat?.close());

async function assertNeverShown(stage: string, minimumChecks: number): Promise<void> {
	const seen = await page.evaluate(() => (window as unknown as { __seen: { checks: number; leaks: string[] } }).__seen);
	assert.deepEqual(seen.leaks, [], `${stage}: a secret showed`);
	assert.ok(seen.checks >= minimumChecks, `${stage}: the page was looked at ${seen.checks} times`);
	const html = await page.evaluate(() => [...document.querySelectorAll(".msg:not(.user)")].map((m) => m.outerHTML).join("\n"));
	assert.deepEqual(leaks(html), [], `${stage}: at the end`);
}

test("a reply and its thinking streamed three characters at a time, and at random, never show a secret", async () => {
	// Paced (SLOW), so that the page paints many of the states the text passes through.
	await runPrompt(page, `THINK ${SECRETS_LINE}\nREPLY_JSON ${JSON.stringify(SECRETS_REPLY)}\nCHUNKS 3\nSLOW 4`);
	await runPrompt(page, `THINK ${SECRETS_LINE}\nREPLY_JSON ${JSON.stringify(SECRETS_REPLY)}\nCHUNKS 6 4242\nSLOW 4`);
	await assertNeverShown("reply and thinking", 200);
	assert.ok((await page.locator(".msg.assistant").last().textContent())!.includes("[REDACTED]"));
});

test("tool calls whose arguments and output hold secrets, streamed in small pieces, never show one", async () => {
	const pem = SECRET_SHAPES.find((s) => s.name === "PEM RSA ")!.text;
	const key = SECRET_SHAPES.find((s) => s.name === "npm token")!.text;
	const runs = SECRET_SHAPES.filter((shape) => !shape.text.includes("\n")).map((shape) => `RUN printf '%s\\n' '${shape.text}'`);
	runs.push(`RUN ${printInTwoWrites(key.slice(0, 12), key.slice(12))}`, `RUN ${printInTwoWrites(pem.slice(0, 60), pem.slice(60))}`);
	await runPrompt(page, `${runs.join("\n")}\nCHUNKS 3\nSLOW 4`);
	await assertNeverShown("tool calls", 300);
	assert.equal(await page.locator(".tool[data-state='done']").count(), runs.length);
});
