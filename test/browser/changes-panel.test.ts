/**
 * Diffs in the transcript and the Changes panel, against the real service and the fake model in a temporary
 * git repository, at desktop and phone sizes: an edit card and a write card show their diffs (coloured,
 * numbered), a new file says so; the panel lists the files with status and counts against HEAD, shows a diff,
 * goes side by side on a wide screen, jumps to the call in the transcript, follows the agent's edits live
 * (a comment whose lines changed is marked stale and still sends its snapshot), refuses a revert of a file changed since it was listed (said plainly)
 * and then reverts it; comments on diff lines survive a panel switch and reach the model as one prompt.
 * Outside git the panel says its base is what the session's own edits found. Mid-merge the conflicted file
 * is marked; a file whose name is not UTF-8 shows why it has no diff and why its revert is refused.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { allStarted, type ChatService, launchBrowser, newSession, openPage, runPrompt, showPanel, startChatService, VIEWPORTS } from "../support/browser.js";
import { baseRepository, removeTempRepos, sh, tempRepoDir } from "../support/git-repo.js";
import { tempDir } from "../support/skiff-process.js";
import { TestClient } from "../support/ws-client.js";

let browser: Browser;
let service: ChatService;
let repo: string;

before(async () => {
	repo = baseRepository(tempRepoDir("skiff-changes-ui-"));
	await allStarted([launchBrowser().then((b) => (browser = b)), startChatService({ cwd: repo }).then((s) => (service = s))]);
});

after(async () => {
	await browser?.close();
	await service?.close();
	removeTempRepos();
});

const edit = (path: string, oldText: string, newText: string) => `CALL edit ${JSON.stringify({ path, edits: [{ oldText, newText }] })}`;
const write = (path: string, content: string) => `CALL write ${JSON.stringify({ path, content })}`;

for (const viewport of VIEWPORTS) {
	describe(`diffs and the Changes panel at ${viewport.name} size`, () => {
		let page: Page;
		const file = `${viewport.name}.ts`;
		const made = `${viewport.name}-new.md`;
		before(async () => {
			writeFileSync(join(repo, file), "const a = 1;\nconst b = 2;\n");
			page = await openPage(browser, service.skiff.url, viewport);
			await newSession(page, viewport);
		});
		after(() => page?.context().close());

		test("edit and write cards show their diffs; a new file says so", async () => {
			await runPrompt(page, [write(file, "const a = 1;\nconst b = 3;\nexport { a, b };\n"), write(made, "# Notes\nfirst\n")].join("\n") + "\nAFTER_TOOL Written.");
			await runPrompt(page, `${edit(file, "const a = 1;", "let a = 10;")}\nAFTER_TOOL Edited.`);
			const cards = page.locator(".tool[data-state='done']:has(.dv)");
			await page.waitForFunction(() => document.querySelectorAll(".tool .dv").length === 3);
			await runPrompt(page, `${write(`${viewport.name}-long.txt`, Array.from({ length: 40 }, (_, n) => `line ${n + 1}${n === 5 ? " token=abcdef123456" : ""}`).join("\n"))}\nAFTER_TOOL Long.`);
			const long = page.locator(".tool:has-text('-long.txt')");
			await long.locator(".dv").waitFor();
			assert.equal(await long.locator(".dt").count(), 30, "folded at 30 rows");
			await long.locator("button:has-text('Show 10 more lines')").click();
			assert.equal(await long.locator(".dt").count(), 40);
			assert.equal(await long.locator(".dt").nth(5).textContent(), "+line 6 token=[REDACTED]", "a secret in a diff is redacted");
			const [overwrite, created, edited] = [cards.nth(0), cards.nth(1), cards.nth(2)];
			assert.deepEqual(await overwrite.locator(".dt.r").allTextContents(), ["-const b = 2;"]);
			assert.deepEqual(await overwrite.locator(".dt.a").allTextContents(), ["+const b = 3;", "+export { a, b };"]);
			assert.equal(await overwrite.locator(".dt.a .tok-keyword").first().textContent(), "const", "highlighted as TypeScript");
			assert.match((await created.textContent())!, /New file, 2 lines/);
			assert.deepEqual(await edited.locator(".dt.a").allTextContents(), ["+let a = 10;"]);
			assert.deepEqual(await edited.locator(".ln.a").allTextContents(), ["", "1"], "old and new line numbers");
			const width = await page.evaluate(() => [document.documentElement.scrollWidth, innerWidth]);
			assert.ok(width[0]! <= width[1]!, "no sideways overflow");
		});

		test("the panel lists the files against HEAD, shows a diff and jumps to its call", async () => {
			await showPanel(page, viewport, "changes");
			await page.waitForSelector(`.change-list button:has-text('${file}')`);
			assert.match((await page.textContent(".changes-base"))!, /Base: HEAD \([0-9a-f]{12}, on main\)/);
			const row = page.locator(`.change-list button:has-text('${file}')`);
			assert.equal(await row.locator(".st").textContent(), "U");
			assert.equal(await row.locator(".counts").getAttribute("aria-label"), "3 added, 0 removed");
			await row.click();
			await page.waitForSelector(`.file-change[aria-label='Diff of ${file}'] .dv`);
			const sideBySide = page.locator(".file-change button:has-text('Side by side')");
			if (viewport.phone) assert.equal(await sideBySide.isVisible(), false, "no room for it on a phone");
			else {
				const narrow = await page.locator("aside.panels").evaluate((el) => el.getBoundingClientRect().width);
				await sideBySide.click();
				await page.waitForSelector(".file-change .dv.split");
				assert.ok((await page.locator("aside.panels").evaluate((el) => el.getBoundingClientRect().width)) > narrow * 1.5, "the side column widens");
				await sideBySide.click();
				await page.waitForSelector(".file-change .dv:not(.split)");
			}
			await page.click(".file-change button:has-text('Open in transcript')");
			await page.waitForFunction(() => document.activeElement?.classList.contains("tool"));
			assert.match((await page.evaluate(() => document.activeElement!.textContent))!, /let a = 10;/, "the last call that changed it");
		});

		test("review comments survive a panel switch and reach the model as one prompt", async () => {
			await showPanel(page, viewport, "changes");
			await page.click(`.file-change .dg[aria-label='Comment on line 2']`);
			await page.click(`.file-change .dg[aria-label='Comment on line 3']`, { modifiers: ["Shift"] });
			await page.fill("textarea[name='review-comment']", "Name these better");
			await page.click("button:has-text('Add to review')");
			await page.waitForSelector(".review li:has-text('lines 2–3')");
			await showPanel(page, viewport, "todo");
			await showPanel(page, viewport, "changes");
			await page.waitForSelector(".review li:has-text('lines 2–3')");
			await page.waitForSelector(`.file-change[aria-label='Diff of ${file}']`); // still open
			assert.equal(await page.inputValue(".review textarea"), "Name these better");
			await page.fill(".review textarea", "Name these better, please");
			const from = service.model.requests.length;
			await page.click("button:has-text('Send review to the agent')");
			await page.waitForFunction(() => !document.querySelector(".review"));
			await waitFor(() => service.model.requests.length > from);
			const body = JSON.stringify(service.model.requests.at(-1)!.body);
			const prompt = JSON.parse(body).messages.filter((m: any) => m.role === "user").at(-1).content;
			const text = typeof prompt === "string" ? prompt : prompt.map((p: any) => p.text).join("");
			assert.match(text, /^Please address my review of your changes \(1 comment\):/);
			assert.ok(text.includes(`1. ${file}, lines 2-3:\n\`\`\`\nconst b = 3;\nexport { a, b };\n\`\`\`\nName these better, please`), text);
		});

		test("the panel follows the agent's edits live; a comment whose lines changed is marked stale and sends its snapshot", async () => {
			await page.waitForSelector(".app[data-run='idle']");
			await showPanel(page, viewport, "changes");
			await page.click(".file-change .dg[aria-label='Comment on line 2']");
			await page.fill("textarea[name='review-comment']", "Is 3 right?");
			await page.click("button:has-text('Add to review')");
			await page.waitForSelector(".review li:has-text('line 2')");
			if (viewport.phone) await page.click("button.panel-close");
			await runPrompt(page, `${edit(file, "let a = 10;", "// first\nlet a = 10;")}\nAFTER_TOOL Moved.`);
			await showPanel(page, viewport, "changes");
			await page.waitForSelector(`.change-list button:has-text('${file}') .counts[aria-label='4 added, 0 removed']`);
			await page.waitForSelector(".review li .stale");
			const from = service.model.requests.length;
			await page.click("button:has-text('Send review to the agent')");
			await page.waitForFunction(() => !document.querySelector(".review"));
			await waitFor(() => service.model.requests.length > from);
			const messages = (service.model.requests.at(-1)!.body as any).messages;
			const last = messages.filter((m: any) => m.role === "user").at(-1).content;
			const text = typeof last === "string" ? last : last.map((p: any) => p.text).join("");
			assert.match(text, new RegExp(`1\\. ${file.replace(".", "\\.")}, line 2 \\(stale: [^)]*\\):\n\`\`\`\nconst b = 3;\n\`\`\`\nIs 3 right\\?`));
		});

		test("a revert of a file changed since it was listed is refused plainly; then it is reverted", async () => {
			if (viewport.phone) await page.waitForSelector(".app[data-run='idle']");
			await showPanel(page, viewport, "changes");
			const open = page.locator(`.change-list button:has-text('${made}')`);
			await open.click();
			writeFileSync(join(repo, made), "changed\nbehind the\npanel's back\n");
			await page.click(".file-change button:has-text('Revert…')");
			await page.click(".file-change button:has-text('Confirm revert')");
			await page.waitForSelector(".file-change [role='alert']:has-text('changed since you looked')");
			// The refused revert announced changes_updated: the list and the diff are read again, with the file's new token.
			await page.waitForSelector(`.change-list button:has-text('${made}') .counts[aria-label='3 added, 0 removed']`);
			assert.match((await page.textContent(".file-change [role='alert']"))!, /changed since you looked/, "the refusal stays in view");
			await page.click(".file-change button:has-text('Revert…')");
			await page.click(".file-change button:has-text('Confirm revert')");
			await page.waitForFunction((name) => ![...document.querySelectorAll(".change-list button")].some((b) => b.textContent!.includes(name)), made);
			assert.equal(existsSync(join(repo, made)), false, "moved to the trash folder");
		});
	});
}

test("outside git: the panel says its base is what the session's own edits found, and shows their diff", async () => {
	const dir = tempDir();
	writeFileSync(join(dir, "plan.md"), "step one\nstep two\n");
	const client = await TestClient.connect(service.skiff.wsUrl);
	try {
		const { sessionId } = await client.ok({ type: "new_session", cwd: dir });
		await client.turn(sessionId, `${edit("plan.md", "step two", "step 2")}\nAFTER_TOOL Done.`);
		const page = await openPage(browser, service.skiff.url, VIEWPORTS[0], { before: async (p) => void (await p.addInitScript((id) => sessionStorage.setItem("skiff.session", id), sessionId)) });
		try {
			await showPanel(page, VIEWPORTS[0], "changes");
			await page.waitForSelector(".changes-base:has-text('Not a git repository')");
			assert.match((await page.textContent(".changes-base"))!, /Base: What this session's edit and write tool calls found/);
			assert.equal(await page.locator(".panel-actions select").count(), 0, "no base to choose outside git");
			await page.click(".change-list button:has-text('plan.md')");
			await page.waitForSelector(".file-change .dv");
			assert.deepEqual(await page.locator(".file-change .dt.r").allTextContents(), ["-step two"]);
			assert.deepEqual(await page.locator(".file-change .dt.a").allTextContents(), ["+step 2"]);
		} finally {
			await page.context().close();
		}
	} finally {
		client.close();
		rmSync(dir, { recursive: true, force: true });
	}
});

test("mid-merge: the conflicted file is marked as the base's note says; a name that is not UTF-8 shows why it has no diff and why its revert is refused", async () => {
	const merging = baseRepository(tempRepoDir("skiff-changes-merge-"));
	sh(merging, "switch", "-q", "-c", "side");
	writeFileSync(join(merging, "a.txt"), "side\n");
	sh(merging, "commit", "-q", "-a", "-m", "side");
	sh(merging, "switch", "-q", "main");
	writeFileSync(join(merging, "a.txt"), "main\n");
	sh(merging, "commit", "-q", "-a", "-m", "main");
	assert.throws(() => sh(merging, "merge", "-q", "side"), "the merge stops on a.txt");
	execFileSync("sh", ["-c", "printf 'x\\n' > \"odd$(printf '\\351').txt\""], { cwd: merging });
	const client = await TestClient.connect(service.skiff.wsUrl);
	try {
		const { sessionId } = await client.ok({ type: "new_session", cwd: merging });
		const page = await openPage(browser, service.skiff.url, VIEWPORTS[0], { before: async (p) => void (await p.addInitScript((id) => sessionStorage.setItem("skiff.session", id), sessionId)) });
		try {
			await showPanel(page, VIEWPORTS[0], "changes");
			await page.waitForSelector(".changes-base:has-text('A merge is in progress')");
			assert.equal(await page.locator(".change-list button:has-text('a.txt') .tag.conflict").textContent(), "conflict");
			assert.equal(await page.locator(".change-list button:has-text('odd') .tag.conflict").count(), 0);

			await page.click(".change-list button:has-text('odd')");
			await page.waitForSelector(".file-change .error-text:has-text('not valid UTF-8')");
			await page.click(".file-change button:has-text('Revert…')");
			await page.click(".file-change button:has-text('Confirm revert')");
			await page.waitForSelector(".file-change [role='alert']:has-text('not valid UTF-8')");
			assert.equal(execFileSync("sh", ["-c", "cat odd*.txt"], { cwd: merging, encoding: "utf8" }), "x\n", "left as it was");
		} finally {
			await page.context().close();
		}
	} finally {
		client.close();
	}
});

async function waitFor(condition: () => boolean): Promise<void> {
	while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}
