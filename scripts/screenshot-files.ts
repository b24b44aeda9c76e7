/**
 * The Files panel and the composer's attachments as `npm run screenshots` shows them: a small project (a git
 * repository with ignored folders, source, a README) in the screenshot session's folder; the panel's listing, a
 * highlighted source file and the rendered README; then, in the message box, `@` and `/` completions open, a
 * pasted image, the refusal of a text-only model (the screenshots' model reads text only), and a message sent
 * with a mentioned file, shown as a chip.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Page } from "playwright-core";

const PROJECT: Record<string, string> = {
	".gitignore": "node_modules/\ndist/\n",
	"README.md": "# Skiff\n\nA local coding-agent service: **HTTP + WebSocket** and a one-file web page.\n\n## Start\n\n```sh\nnpm install\nnpm start -- --listen 127.0.0.1:7733\n```\n\n- Sessions, branches and forks\n- Jobs, personas and workflows\n",
	"package.json": '{\n  "name": "skiff",\n  "type": "module",\n  "scripts": { "start": "node bin/skiff" }\n}\n',
	"src/listener/routes.ts":
		'/** The route table: which paths the listener serves, and with which methods. */\nimport type { IncomingMessage } from "node:http";\n\nexport const ROUTES = ["/web", "/ws", "/rpc"] as const;\n\n// HEAD is served wherever GET is.\nexport function allowed(request: IncomingMessage): boolean {\n\tconst path = new URL(request.url ?? "/", "http://x").pathname;\n\treturn ROUTES.includes(path as (typeof ROUTES)[number]) && ["GET", "HEAD"].includes(request.method ?? "");\n}\n',
	"src/listener/admission.ts": "export const MAX_FAILURES = 5;\n",
	"src/service.ts": 'export async function start(): Promise<void> {\n\tconsole.log("listening");\n}\n',
	"docs/web.md": "# The web page\n",
	"dist/skiff.cjs": "// built\n",
	"node_modules/.package-lock.json": "{}\n",
};

/** Prompt templates the `/` list offers (with the descriptions their front matter gives). */
const PROMPTS: Record<string, string> = {
	"review.md": "---\ndescription: Review the staged changes and list concrete problems\n---\nReview what is staged.\n",
	"release-notes.md": "---\ndescription: Write release notes from the merged changes\n---\nWrite release notes.\n",
	"explain.md": "---\ndescription: Explain a file or a function step by step\n---\nExplain $1.\n",
};

/** Writes the project into `cwd` as a git repository (so what it ignores is marked), and prompt templates into `agentDir`. */
export function writeScreenshotProject(cwd: string, agentDir: string): void {
	mkdirSync(join(agentDir, "prompts"), { recursive: true });
	for (const [name, text] of Object.entries(PROMPTS)) writeFileSync(join(agentDir, "prompts", name), text);
	for (const [path, text] of Object.entries(PROJECT)) {
		mkdirSync(dirname(join(cwd, path)), { recursive: true });
		writeFileSync(join(cwd, path), text);
	}
	execFileSync("git", ["init", "-q"], { cwd });
}

type Shot = (view: string) => Promise<void>;

export async function filesViews(page: Page, openPanel: (id: string) => Promise<void>, closePanels: () => Promise<void>, shot: Shot): Promise<void> {
	await openPanel("files");
	await page.waitForSelector("#panel-files .file-open:has-text('README.md')");
	await shot("files");
	await page.click("#panel-files .file-open:has-text('src')");
	await page.click("#panel-files .file-open:has-text('listener')");
	await page.click("#panel-files .file-open:has-text('routes.ts')");
	await page.waitForSelector("#panel-files .file-text .code");
	await shot("files-source");
	await page.click("#panel-files .crumbs button:has-text('Project')");
	await page.click("#panel-files .file-open:has-text('README.md')");
	await page.waitForSelector("#panel-files .file-text .md");
	await shot("files-markdown");
	await closePanels();

	const box = page.locator("#composer");
	await box.fill(""); // the text given back before goes, and its note with it
	await box.fill("Explain how ");
	await box.pressSequentially("@src/li");
	await page.waitForSelector("#composer-choices [role='option']:has-text('listener/')");
	await box.press("Enter");
	await page.waitForSelector("#composer-choices [role='option']:has-text('routes.ts')");
	await shot("composer-mention");
	await box.press("Escape");
	await box.fill("");
	await box.pressSequentially("/");
	await page.waitForSelector("#composer-choices [role='option']");
	await shot("composer-commands");
	await box.fill("What does this screenshot show?");
	await pasteScreen(page, "screen.png");
	await page.waitForSelector(".attachments li:not(.busy) img");
	await shot("composer-image");
	await box.press("Enter");
	await page.waitForSelector(".composer-note:has-text('does not take images')");
	await shot("composer-image-refused");
	// An upload the service refuses: the chip is marked and the note says why.
	await page.route("**/attachments", (route) => route.fulfill({ status: 413, contentType: "text/plain", body: "The image is 6291456 bytes: an upload may be at most 5 MiB (5242880 bytes)" }));
	await page.click("button[aria-label='Dismiss note']");
	await pasteScreen(page, "photo.png");
	await page.waitForSelector(".attachments li.failed");
	await shot("composer-image-failed");
	await page.unroute("**/attachments");
	await page.click("button[aria-label='Remove image 2']");
	await page.click("button[aria-label='Remove image 1']");
	await box.fill("Explain how @src/listener/routes.ts decides what is allowed."); // its reply is scripted (screenshots.ts)
	await box.press("Enter");
	await page.waitForSelector(".msg.user .chips li");
	await page.waitForSelector("[data-run='idle']");
	await shot("mention-sent");
}

/** Pastes a picture of a screen (made in the page) into the composer. */
function pasteScreen(page: Page, name: string): Promise<void> {
	return page.evaluate(async (name) => {
		const canvas = document.createElement("canvas");
		canvas.width = 640;
		canvas.height = 400;
		const context = canvas.getContext("2d")!;
		const gradient = context.createLinearGradient(0, 0, 640, 400);
		gradient.addColorStop(0, "#3b6fd8");
		gradient.addColorStop(1, "#9b59d0");
		context.fillStyle = gradient;
		context.fillRect(0, 0, 640, 400);
		context.fillStyle = "#fff";
		context.fillRect(60, 60, 520, 60);
		context.fillRect(60, 160, 300, 30);
		const blob = await new Promise<Blob>((done) => canvas.toBlob((b) => done(b!), "image/png"));
		const transfer = new DataTransfer();
		transfer.items.add(new File([blob], name, { type: "image/png" }));
		document.getElementById("composer")!.dispatchEvent(new ClipboardEvent("paste", { clipboardData: transfer, bubbles: true, cancelable: true }));
	}, name);
}
