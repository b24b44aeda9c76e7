/**
 * Issue 23, sections 3 and 4 in the page: the Files panel browses the session's folder (a git repository: ignored
 * entries marked, a big folder paged) and previews files (highlighted source, rendered markdown, an image,
 * "binary", secrets masked); the composer takes pasted images (downsized past 2,048 px, refused with a reason
 * when of another type or too many) that reach the model and show in the bubble; `@` completes paths (walking
 * folders) and sends the file's text as pi's `@file` does, shown as a chip; `/` lists the prompt templates.
 */
import assert from "node:assert/strict";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { newSession, openPage, runPrompt, settled, showPanel, useChatService, VIEWPORTS, type Viewport } from "../support/browser.js";
import { removeTempRepos, sh, tempRepoDir } from "../support/git-repo.js";
import { grainyPng } from "../support/png.js";
import { refuseImages } from "../support/refused-images.js";
import { tempDir } from "../support/skiff-process.js";
import { TestClient } from "../support/ws-client.js";

const PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const SECRET = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ";
const MANY = 600;
/** The project's folder (the session's working directory). */
let cwd: string;

// Chromium and the service start together, once the folder is made.
const chat = useChatService(() => {
	cwd = tempRepoDir("skiff-files-ui-");
	sh(cwd, "init", "-q", "-b", "main");
	writeFileSync(join(cwd, ".gitignore"), "build/\n");
	writeFileSync(join(cwd, "README.md"), "# Project notes\n\nSome **bold** words.\n");
	mkdirSync(join(cwd, "src"));
	writeFileSync(join(cwd, "src", "app.ts"), "export function greet(name: string) {\n\treturn `hello ${name}`; // greets\n}\n");
	writeFileSync(join(cwd, "src", "config.ts"), `export const key = "${SECRET}";\n`);
	mkdirSync(join(cwd, "build"));
	writeFileSync(join(cwd, "build", "out.js"), "built\n");
	writeFileSync(join(cwd, "logo.png"), Buffer.from(PNG_1PX, "base64"));
	// Pictures pi's read tool passes on as they are (under 4.5 MiB of base64), two more than a transcript carries.
	for (const n of [0, 1]) writeFileSync(join(cwd, `shot${n}.png`), grainyPng(1500, 1000, n));
	writeFileSync(join(cwd, "data.bin"), Buffer.from([0, 1, 2, 3, 255, 254, 0, 0, 7]));
	symlinkSync("/etc/hostname", join(cwd, "escape"));
	writeFileSync(join(cwd, "big.log"), "line of the log\n".repeat(80_000)); // 1.2 MiB
	writeFileSync(join(cwd, "latin1.txt"), Buffer.from("caf\xe9 cr\xe8me\n", "latin1"));
	writeFileSync(Buffer.concat([Buffer.from(join(cwd, "name-caf")), Buffer.from([0xe9]), Buffer.from(".txt")]), "a name that is not UTF-8\n");
	mkdirSync(join(cwd, "many"));
	for (let i = 0; i < MANY; i++) writeFileSync(join(cwd, "many", `f${String(i).padStart(3, "0")}.txt`), "x");
	const agentDir = tempDir();
	mkdirSync(join(agentDir, "prompts"));
	writeFileSync(join(agentDir, "prompts", "review.md"), "---\ndescription: Review the staged changes\n---\nReview what is staged.\n");
	return { cwd, agentDir };
});

after(() => removeTempRepos());

/** The panel body fits its width: nothing runs off the side (the phone's drawer is narrow). */
async function fitsSideways(page: Page, selector: string): Promise<void> {
	const overflow = await page.$eval(selector, (el) => el.scrollWidth - el.clientWidth);
	assert.ok(overflow <= 1, `${selector} overflows by ${overflow}px`);
}

/** The last request's user message content the fake model received, as JSON text. */
function lastUserContent(): string {
	const request = chat.service.model.requests.at(-1)!;
	const user = [...request.body.messages].reverse().find((m: { role: string }) => m.role === "user");
	return JSON.stringify(user.content);
}

/**
 * Pastes (or drops) files made in the page into the box: a canvas image `width` px wide (`height`, 40 by default;
 * its first `noise` rows random, so it stays large as a PNG), or a file of `text`.
 */
function paste(page: Page, files: Array<{ name: string; type: string; width?: number; height?: number; noise?: number; text?: string }>, drop = false): Promise<void> {
	return page.evaluate(async ([list, drop]) => {
		const transfer = new DataTransfer();
		for (const item of list) {
			if (item.text !== undefined) {
				transfer.items.add(new File([item.text], item.name, { type: item.type }));
				continue;
			}
			const canvas = document.createElement("canvas");
			canvas.width = item.width!;
			canvas.height = item.height ?? 40;
			const context = canvas.getContext("2d")!;
			context.fillStyle = "#c33";
			context.fillRect(0, 0, canvas.width, canvas.height);
			if (item.noise) {
				const pixels = context.createImageData(canvas.width, item.noise);
				for (let n = 0; n < pixels.data.length; n++) pixels.data[n] = n % 4 === 3 ? 255 : (Math.random() * 256) | 0;
				context.putImageData(pixels, 0, 0);
			}
			const blob = await new Promise<Blob>((done) => canvas.toBlob((b) => done(b!), item.type));
			transfer.items.add(new File([blob], item.name, { type: item.type }));
		}
		const box = document.getElementById("composer")!;
		box.focus();
		if (drop) box.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
		else box.dispatchEvent(new ClipboardEvent("paste", { clipboardData: transfer, bubbles: true, cancelable: true }));
	}, [files, drop] as const);
}

/** The width a PNG's header gives (base64 data). */
const pngWidth = (data: string) => Buffer.from(data, "base64").readUInt32BE(16);

async function openFiles(page: Page, viewport: Viewport): Promise<void> {
	await showPanel(page, viewport, "files");
	await page.waitForSelector(".file-list");
}

for (const viewport of VIEWPORTS) {
	describe(`files and attachments at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		let page: Page;
		before(async () => {
			page = await openPage(chat.browser, chat.service.skiff.url, viewport);
		});
		after(() => page?.context().close());

		test("the Files panel lists a folder, marks what git ignores, walks into folders and pages a big one", async () => {
			await openFiles(page, viewport);
			const names = await page.locator(".file-list .file-name").allTextContents();
			assert.deepEqual(names.slice(0, 4), [".git", "build", "many", "src"], "folders first");
			assert.equal(await page.locator(".file-open").first().isDisabled(), true, "git's own folder is listed, never entered");
			assert.ok(names.includes("README.md") && names.includes("logo.png"));
			assert.equal(await page.locator(".file-list li.ignored", { hasText: "build" }).locator(".file-tag").textContent(), "ignored");
			assert.equal(await page.locator(".file-list li", { hasText: "src" }).locator(".file-tag").count(), 0);
			const unnamable = page.locator(".file-open", { hasText: "name-caf" });
			assert.equal(await unnamable.isDisabled(), true, "a name that is not UTF-8 is listed, not offered to open");
			assert.equal(await unnamable.locator(".file-meta").textContent(), "name not readable here");
			await fitsSideways(page, "#panel-files .panel-body");

			await page.click(".file-open:has-text('many')");
			await page.waitForSelector(".crumbs [aria-current='location']:has-text('many')");
			await page.waitForFunction(() => document.querySelectorAll(".file-list li").length === 500); // one page
			// Ten of the entries shown go before the next page is asked for: it still starts after the last one shown.
			const manyFile = (i: number) => join(cwd, "many", `f${String(i).padStart(3, "0")}.txt`);
			for (let i = 0; i < 10; i++) rmSync(manyFile(i));
			await page.click(`button:has-text('Show more (${MANY - 500} left)')`);
			await page.waitForFunction((n) => document.querySelectorAll(".file-list li").length === n, MANY);
			const shown = await page.locator(".file-list .file-name").allTextContents();
			assert.deepEqual(shown.slice(499, 501), ["f499.txt", "f500.txt"], "no entry skipped between the pages");
			for (let i = 0; i < 10; i++) writeFileSync(manyFile(i), "x");
			await page.click(".crumbs button:has-text('Project')");
			await page.waitForSelector(".file-open:has-text('README.md')");
		});

		test("previews: highlighted source, rendered markdown, an image, binary, and secrets masked", async () => {
			await openFiles(page, viewport);
			await page.click(".file-open:has-text('src')");
			await page.click(".file-open:has-text('app.ts')");
			await page.waitForSelector(".file-text .code .tok-keyword:has-text('function')");
			assert.equal(await page.locator(".code-bar span").textContent(), "typescript");
			assert.equal(await page.locator(".crumbs [aria-current='page']").textContent(), "app.ts");
			await fitsSideways(page, "#panel-files .panel-body");

			await page.click(".crumbs button:has-text('src')");
			await page.click(".file-open:has-text('config.ts')");
			await page.waitForSelector(".file-text .code");
			const shown = await page.locator("#panel-files").textContent();
			assert.ok(!shown!.includes(SECRET), "the secret never shows");
			assert.match(shown!, /\[REDACTED\]/);
			assert.match(shown!, /Secrets in it are masked/);

			await page.click(".crumbs button:has-text('Project')");
			await page.click(".file-open:has-text('README.md')");
			await page.waitForSelector(".file-text .md h3:has-text('Project notes')");
			assert.equal(await page.locator(".file-text .md strong").textContent(), "bold");

			await page.click(".crumbs button:has-text('Project')");
			await page.click(".file-open:has-text('logo.png')");
			const src = await page.locator(".file-image img").getAttribute("src");
			assert.equal(src, `data:image/png;base64,${PNG_1PX}`);

			await page.click(".crumbs button:has-text('Project')");
			await page.click(".file-open:has-text('data.bin')");
			await page.waitForSelector(".empty-state:has-text('Binary, 9 bytes')");

			// Past 1 MiB: its head, plain (not highlighted), and a note; text that is not UTF-8 says so.
			await page.click(".crumbs button:has-text('Project')");
			await page.click(".file-open:has-text('big.log')");
			await page.waitForSelector(".file-text .hint:has-text('Only the first 1.0 MiB of 1.2 MiB are shown.')");
			assert.equal(await page.locator(".file-text pre.file-plain").count(), 1);
			await fitsSideways(page, "#panel-files .panel-body");
			await page.click(".crumbs button:has-text('Project')");
			await page.click(".file-open:has-text('latin1.txt')");
			await page.waitForSelector(".file-text .hint:has-text('Not UTF-8 text')");
			assert.match((await page.locator(".file-text pre").textContent())!, /caf\uFFFD cr\uFFFDme/);

			// A link leading outside is listed, not opened; a file gone since it was listed is a clear error.
			await page.click(".crumbs button:has-text('Project')");
			const link = page.locator(".file-list li", { hasText: "escape" });
			assert.equal(await link.locator(".file-meta").textContent(), "link outside the project");
			assert.equal(await link.locator(".file-open").isDisabled(), true);
			writeFileSync(join(chat.service.cwd, "gone.txt"), "removed after it was listed\n");
			await page.click("#panel-files button:has-text('Refresh')");
			await page.waitForSelector(".file-open:has-text('gone.txt')");
			rmSync(join(chat.service.cwd, "gone.txt"));
			await page.click(".file-open:has-text('gone.txt')");
			await page.waitForSelector('.empty-state:has-text(\'This file cannot be shown\'):has-text(\'"gone.txt" does not exist\')');
			await page.click(".crumbs button:has-text('Project')");
		});

		test("pasted images: thumbnails with remove buttons, refusals at the composer, then sent to the model and shown in the bubble", async () => {
			await newSession(page, viewport);
			await paste(page, [{ name: "notes.txt", type: "text/plain", text: "not an image" }]);
			await page.waitForSelector(".composer-note:has-text('notes.txt is text/plain: only PNG, JPEG, GIF and WebP images can be attached')");
			await paste(page, [
				{ name: "wide.png", type: "image/png", width: 3000 },
				{ name: "small.png", type: "image/png", width: 50 },
			]);
			await page.waitForFunction(() => document.querySelectorAll(".attachments img").length === 2);
			assert.equal(await page.locator(".composer-note").count(), 0, "a good paste clears the refusal");
			await page.click("button[aria-label='Remove image 2']");
			await page.waitForFunction(() => document.querySelectorAll(".attachments img").length === 1);
			// A paste that holds text too (an office program's copy comes with a picture of itself) pastes the text.
			await page.evaluate(async () => {
				const transfer = new DataTransfer();
				transfer.setData("text/plain", "a table row");
				const canvas = document.createElement("canvas");
				const picture = await new Promise<Blob>((done) => canvas.toBlob((b) => done(b!), "image/png"));
				transfer.items.add(new File([picture], "row.png", { type: "image/png" }));
				document.getElementById("composer")!.dispatchEvent(new ClipboardEvent("paste", { clipboardData: transfer, bubbles: true, cancelable: true }));
			});
			// Dropped on the box, an image is taken as pasted ones are (and, taken after it, the picture would show by now).
			await paste(page, [{ name: "dropped.webp", type: "image/webp", width: 30 }], true);
			await page.waitForSelector(".attachments img[src^='data:image/webp;base64,']");
			assert.equal(await page.locator(".attachments img").count(), 2, "no picture of the pasted text");
			await page.click("button[aria-label='Remove image 2']");
			// Nine at once: eight are taken, the ninth refused.
			await paste(page, Array.from({ length: 8 }, (_, i) => ({ name: `n${i}.png`, type: "image/png", width: 20 })));
			await page.waitForSelector(".composer-note:has-text('At most 8 images go with one message')");
			assert.equal(await page.locator(".attachments img").count(), 8);
			for (let n = 8; n > 1; n--) await page.click(`button[aria-label='Remove image ${n}']`);

			// A model that reads text only refuses the message before anything is recorded: said at the composer, nothing lost.
			await showPanel(page, viewport, "settings");
			await page.selectOption(".settings select[name='model']", "fake/fake-reasoner");
			await page.waitForSelector(".model-name:has-text('fake-reasoner')", { state: "attached" });
			if (viewport.phone) await page.keyboard.press("Escape");
			let requests = chat.service.model.requests.length;
			await page.fill("#composer", "REPLY I see a red band\nwhat is this?");
			await page.press("#composer", "Enter");
			await page.waitForSelector(".composer-note:has-text('Not sent: The model fake/fake-reasoner does not take images: remove the image, or choose a model that takes images.')");
			assert.equal(await page.locator(".attachments img").count(), 1, "the image stays");
			assert.equal(await page.inputValue("#composer"), "REPLY I see a red band\nwhat is this?", "the text stays");
			assert.equal(await page.locator(".msg.user").count(), 0, "nothing recorded");
			assert.equal(chat.service.model.requests.length, requests, "the model was not asked");
			await showPanel(page, viewport, "settings");
			await page.selectOption(".settings select[name='model']", "fake/fake-model");
			await page.waitForSelector(".model-name:has-text('fake-model')", { state: "attached" });
			if (viewport.phone) await page.keyboard.press("Escape");

			requests = chat.service.model.requests.length;
			await page.press("#composer", "Enter");
			await page.waitForSelector(".msg.user .user-images img");
			await page.waitForSelector(".app[data-run='idle']");
			assert.equal(await page.locator(".attachments").count(), 0, "the composer is emptied");
			assert.ok(chat.service.model.requests.length > requests);
			const sent = JSON.parse(lastUserContent()) as Array<{ type: string; image_url?: { url: string } }>;
			const image = sent.find((part) => part.type === "image_url")!;
			assert.ok(image, "the model got the image");
			assert.equal(pngWidth(image.image_url!.url.split(",")[1]!), 2048, "downsized to 2,048 px");
			const bubble = await page.locator(".msg.user .user-images img").getAttribute("src");
			assert.match(bubble!, /^data:image\/png;base64,iVBORw0KGgo/);
		});

		test("several large images upload as they are attached and go by id: the model gets them all, the bubble shows them", async () => {
			await newSession(page, viewport);
			// An upload the service refuses marks its chip and says why; the message waits until it is removed.
			await page.route("**/attachments", (route) => route.fulfill({ status: 429, contentType: "text/plain", body: "Too many unused uploads" }));
			await paste(page, [{ name: "refused.png", type: "image/png", width: 30 }]);
			await page.waitForSelector(".attachments li.failed img[alt='Image 1, not uploaded']");
			await page.waitForSelector(".composer-note:has-text('Too many unused uploads')");
			await page.unroute("**/attachments");
			await page.fill("#composer", "REPLY no\nnot yet");
			await page.press("#composer", "Enter");
			await page.waitForSelector(".composer-note:has-text('An image could not be uploaded: remove it')");
			assert.equal(await page.locator(".msg.user").count(), 0, "nothing sent");
			await page.click("button[aria-label='Remove image 1']");
			// 400 noisy rows: each about 2.4 MB once downsized (under the 5 MiB an upload may be), 12 MiB of base64 in
			// all (over the 8 MiB a transcript carries, so a reload leaves some out); 700 rows took 21 MiB, for nothing.
			await paste(page, Array.from({ length: 4 }, (_, i) => ({ name: `photo${i}.png`, type: "image/png", width: 2400, height: 1600, noise: 400 })));
			await page.waitForFunction(() => document.querySelectorAll(".attachments li").length === 4 && !document.querySelector(".attachments .busy"), undefined, { timeout: 60_000 });
			assert.equal(await page.locator(".attachments .failed").count(), 0, "every upload was kept");
			await page.fill("#composer", "REPLY four photos\nwhat are these?");
			await page.press("#composer", "Enter");
			await page.waitForFunction(() => document.querySelectorAll(".msg.user .user-images li").length === 4);
			await page.waitForSelector(".app[data-run='idle']");
			const parts = (JSON.parse(lastUserContent()) as Array<{ type: string; image_url?: { url: string } }>).filter((part) => part.type === "image_url");
			assert.equal(parts.length, 4, "the model got every image");
			for (const part of parts) assert.equal(pngWidth(part.image_url!.url.split(",")[1]!), 2048, "downsized to 2,048 px");
			const base64 = parts.reduce((sum, part) => sum + part.image_url!.url.length, 0);
			assert.ok(base64 > 4 * 1024 * 1024, `more than one WebSocket message holds (${base64} characters of base64)`);
			// The bubble shows each as a picture: past what one event carries, the service leaves an image's data out
			// and the page asks for it (get_image) as its tile comes into view. After a reload too.
			const pictures = async () => {
				await page.waitForFunction(() => document.querySelectorAll(".msg.user .user-images img").length === 4, undefined, { timeout: 60_000 });
				const srcs = await page.locator(".msg.user .user-images img").evaluateAll((images) => images.map((img) => [(img as HTMLImageElement).src, img.getAttribute("alt")]));
				assert.deepEqual(
					srcs.map(([src, alt]) => [pngWidth(src!.split(",")[1]!), alt]),
					[1, 2, 3, 4].map((n) => [2048, `Image ${n}`]),
				);
				assert.equal(await page.locator(".msg.user .user-images .omitted").count(), 0);
				const bubble = await page.locator(".msg.user .user-images").boundingBox();
				assert.ok(bubble!.x >= 0 && bubble!.x + bubble!.width <= viewport.width, "no overflow");
			};
			await pictures();
			// After a reload, refused (the page's get_image made to name an entry that is not there): a Retry
			// button saying why, which then shows the picture.
			const refusal = await refuseImages(page);
			await page.reload();
			const retry = page.locator(".msg.user .user-images button.omitted");
			await retry.first().waitFor();
			assert.match((await retry.first().getAttribute("aria-label"))!, /^Image \d, \d+\.\d MiB, not loaded: Unknown entry gone in session [^ ]+: see get_tree for the entry ids\. Retry$/);
			assert.equal(await retry.first().textContent(), "Retry");
			refusal.allow();
			while ((await retry.count()) > 0) await retry.first().click();
			await pictures();
		});

		test("a tool card shows its result's images; one the transcript left out loads as it comes into view", async () => {
			await newSession(page, viewport);
			await runPrompt(page, 'CALL read {"path":"logo.png"}\nlook at the logo');
			const logo = page.locator(".tool .user-images[aria-label='Images in the result'] img[alt='Image 1']");
			await logo.waitFor();
			assert.equal(await logo.getAttribute("src"), `data:image/png;base64,${PNG_1PX}`);
			await runPrompt(page, 'CALL read {"path":"shot0.png"}\nCALL read {"path":"shot1.png"}\ncompare them');
			const shots = page.locator(".msg.assistant:has(.tool-args:has-text('shot')) .tool .user-images");
			await page.waitForFunction(() => document.querySelectorAll(".tool .user-images img").length === 3, undefined, { timeout: 60_000 });
			// Opened again, the transcript carries the newest picture's data only (8 MiB of images): the older one's tile
			// asks for it (get_image, by its tool result's entry) once in view, and it shows as the others.
			await page.reload();
			await page.waitForFunction(() => document.querySelectorAll(".tool .user-images img").length === 3, undefined, { timeout: 60_000 });
			assert.equal(await page.locator(".tool .user-images .omitted").count(), 0);
			const sizes = await shots.locator("img").evaluateAll((images) => images.map((img) => (img as HTMLImageElement).naturalWidth));
			assert.deepEqual(sizes, [1500, 1500]);
			const sessionId = await page.evaluate(() => sessionStorage.getItem("skiff.session")!);
			const client = await TestClient.connect(chat.service.skiff.wsUrl);
			try {
				const { messages } = await client.ok({ type: "get_messages", sessionId });
				const omitted = messages.filter((m: any) => m.role === "toolResult").map((m: any) => m.content.find((b: any) => b.type === "image")?.omittedBytes !== undefined);
				assert.deepEqual(omitted, [false, true, false], "the older picture came by get_image");
			} finally {
				client.close();
			}
			const box = (await shots.last().locator("img").last().boundingBox())!;
			assert.ok(box.x >= 0 && box.x + box.width <= viewport.width && box.height <= 20 * 16 + 1, `fits the card (${JSON.stringify(box)})`);
		});

		test("@ completes paths folder by folder (a combobox), and the file goes with the message as a chip", async () => {
			const box = page.locator("#composer");
			await box.fill("REPLY read it\nlook at ");
			await box.pressSequentially("@sr");
			await page.waitForSelector("#composer-choices [role='option']:has-text('src/')");
			assert.equal(await box.getAttribute("role"), "combobox");
			assert.equal(await box.getAttribute("aria-expanded"), "true");
			assert.equal(await box.getAttribute("aria-activedescendant"), "choice-0");
			assert.equal(await page.locator("#composer-choices").getAttribute("aria-label"), "Files");
			await box.press("Enter"); // walks into src/
			await page.waitForSelector("#composer-choices [role='option']:has-text('app.ts')");
			assert.equal(await box.inputValue(), "REPLY read it\nlook at @src/");
			const options = await page.locator("#composer-choices [role='option']").allTextContents();
			assert.deepEqual(options, ["app.ts", "config.ts"]);
			await box.press("Tab");
			await page.waitForSelector("#composer-choices", { state: "detached" });
			assert.equal(await box.inputValue(), "REPLY read it\nlook at @src/app.ts ");
			const listed = await page.evaluate(() => document.querySelector("#composer-choices"));
			assert.equal(listed, null);
			// What git ignores (build/) and git's own folder are not offered.
			await box.pressSequentially("and @");
			await page.waitForSelector("#composer-choices [role='option']:has-text('src/')");
			const all = await page.locator("#composer-choices [role='option']").allTextContents();
			assert.deepEqual(all.slice(0, 2), ["many/", "src/"]);
			assert.ok(!all.some((name) => name.startsWith("build") || name.startsWith(".git/")));
			await box.press("Escape");
			await box.fill("REPLY read it\nlook at @src/app.ts please");

			const requests = chat.service.model.requests.length;
			await box.press("Enter");
			await page.waitForSelector(".msg.user .chips li");
			assert.equal(await page.locator(".msg.user .chips li").last().textContent(), "src/app.ts");
			await page.waitForSelector(".app[data-run='idle']");
			assert.ok(chat.service.model.requests.length > requests);
			const sent = lastUserContent();
			assert.match(sent, /<file name=\\"src\/app.ts\\">\\nexport function greet/);
			const bubble = await page.locator(".msg.user").last().locator(".bubble").textContent();
			assert.ok(!bubble!.includes("export function greet"), "the chip stands for the file's text");
			assert.match(bubble!, /look at @src\/app.ts please/);
		});

		test("/ lists the slash commands with their descriptions; arrows, Escape and Tab work", async () => {
			const box = page.locator("#composer");
			await box.fill("");
			await box.pressSequentially("/rev");
			await page.waitForSelector("#composer-choices [role='option']:has-text('/review')");
			assert.equal(await page.locator("#composer-choices").getAttribute("aria-label"), "Commands");
			assert.match((await page.locator("#composer-choices [role='option']").first().textContent())!, /Review the staged changes/);
			await box.press("Escape");
			await page.waitForSelector("#composer-choices", { state: "detached" });
			assert.equal(await page.locator(".app[data-run='idle']").count(), 1, "Escape closes the list, nothing else");
			await box.press("Backspace");
			await page.waitForSelector("#composer-choices [role='option']");
			await box.press("ArrowDown");
			await box.press("ArrowUp");
			await box.press("Tab");
			assert.equal(await box.inputValue(), "/review ");
			const bounds = await page.locator(".composer").boundingBox();
			assert.ok(bounds!.x >= 0 && bounds!.x + bounds!.width <= viewport.width);
			await box.fill("");
			await settled(page);
		});
	});
}
