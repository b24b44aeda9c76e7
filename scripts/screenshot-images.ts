/**
 * A message with four large screenshots as `npm run screenshots` shows it: more image data than a transcript
 * carries (docs/protocol.md, "Images on the wire"), so the page asks for the rest as their tiles come into view
 * (user-images), and, each of its get_image commands made to name a missing entry, the Retry tiles
 * (user-images-retry); and a tool card showing the picture pi's read tool opened (tool-image). The pictures are
 * made here (test/support/png.ts), grainy so they stay large.
 */
import type { Page } from "playwright-core";
import { rgbPng } from "../test/support/png.js";
import { refuseImages } from "../test/support/refused-images.js";
import { assistant, writeSession } from "./screenshot-sessions.js";

/** A picture of a window on a coloured backdrop (`hue` 0-2 picks the colours), grain in the low bits. */
function screenPng(hue: number, width = 1920, height = 1200): string {
	const picture = rgbPng(width, height, (x, y) => {
		const inside = x > width / 8 && x < (width * 7) / 8 && y > height / 7.5 && y < (height * 13) / 15;
		const bar = inside && y < height / 5.2;
		const base = [60 + (x * 120) / width, 90 + (y * 100) / height, 200 - (x * 60) / width];
		const colour = bar ? [40, 44, 52] : inside ? [246, 246, 248] : [base[hue % 3]!, base[(hue + 1) % 3]!, base[(hue + 2) % 3]!];
		return colour.map((c) => c + ((Math.random() * 8) | 0));
	});
	return picture.toString("base64");
}

export function writeImagesSession(agentDir: string, cwd: string): string {
	const id = "0e9d4c2a-6b1f-4a7e-8c35-9f2b7d1e4a60";
	const images = [0, 1, 2, 0].map((hue) => ({ type: "image", mimeType: "image/png", data: screenPng(hue) }));
	const question = { role: "user", content: [{ type: "text", text: "These four screens show the settings page at each step: where does the layout break?" }, ...images] };
	const answer = assistant([{ type: "text", text: "In the third: the side panel's width is fixed, so at 1,280 px the form wraps under it." }]);
	writeSession(agentDir, { id, name: "Settings layout", cwd, ago: [8, 7], messages: [question, answer] });
	return id;
}

/** A session in which the agent read a screenshot with pi's read tool: its card shows the picture. */
export function writeToolImageSession(agentDir: string, cwd: string): string {
	const id = "5b7e1f3c-2d8a-4c6e-9a1b-3f4d5e6a7b8c";
	const call = { type: "toolCall", id: "call_shot", name: "read", arguments: { path: "docs/login-page.png" } };
	const messages = [
		{ role: "user", content: [{ type: "text", text: "Does the login page still show the old logo? The screenshot is in docs/." }] },
		assistant([{ type: "text", text: "I'll look at the screenshot." }, call], "toolUse"),
		{ role: "toolResult", toolCallId: "call_shot", toolName: "read", content: [{ type: "text", text: "Read image file [image/png]" }, { type: "image", mimeType: "image/png", data: screenPng(1, 960, 600) }], isError: false },
		assistant([{ type: "text", text: "No: the header shows the new mark, on the dark bar at the top of the window." }]),
	];
	writeSession(agentDir, { id, name: "Login page logo", cwd, ago: [600, 599], messages });
	return id;
}

export async function imagesViews(page: Page, id: string, shot: (view: string) => Promise<void>): Promise<void> {
	await page.evaluate((id) => sessionStorage.setItem("skiff.session", id), id);
	await page.reload();
	await page.waitForFunction(() => document.querySelectorAll(".msg.user .user-images img").length === 4, undefined, { timeout: 60_000 });
	await shot("user-images");
	const refusal = await refuseImages(page);
	await page.reload();
	await page.waitForSelector(".msg.user .user-images button.omitted");
	await page.locator(".msg.user .user-images button.omitted").first().focus();
	await shot("user-images-retry");
	refusal.allow();
}

export async function toolImageViews(page: Page, id: string, shot: (view: string) => Promise<void>): Promise<void> {
	await page.evaluate((id) => sessionStorage.setItem("skiff.session", id), id);
	await page.reload();
	await page.waitForSelector(".tool .user-images img");
	await page.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>(".tool .user-images img")].every((img) => img.complete));
	await page.locator(".tool").scrollIntoViewIfNeeded();
	await shot("tool-image");
}
