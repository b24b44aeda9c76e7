/**
 * A message with four large screenshots as `npm run screenshots` shows it: more image data than a transcript
 * carries (docs/protocol.md, "Images on the wire"), so the page asks for the rest as their tiles come into view
 * (user-images), and, each of its get_image commands made to name a missing entry, the Retry tiles
 * (user-images-retry). The pictures are made here (PNG: zlib and a CRC), grainy so they stay large.
 */
import { crc32, deflateSync } from "node:zlib";
import type { Page } from "playwright-core";
import { refuseImages } from "../test/support/refused-images.js";
import { assistant, writeSession } from "./screenshot-sessions.js";

const WIDTH = 1920;
const HEIGHT = 1200;

/** A PNG chunk: its length, type, data and CRC. */
function chunk(type: string, data: Buffer): Buffer {
	const head = Buffer.alloc(8);
	head.writeUInt32BE(data.length);
	head.write(type, 4, "latin1");
	const crc = Buffer.alloc(4);
	crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])));
	return Buffer.concat([head, data, crc]);
}

/** A picture of a window on a coloured backdrop (`hue` 0-2 picks the colours), grain in the low bits. */
function screenPng(hue: number): string {
	const raw = Buffer.alloc(HEIGHT * (1 + WIDTH * 3));
	for (let y = 0; y < HEIGHT; y++) {
		const row = y * (1 + WIDTH * 3);
		for (let x = 0; x < WIDTH; x++) {
			const inside = x > 240 && x < 1680 && y > 160 && y < 1040;
			const bar = inside && y < 230;
			const base = [60 + (x * 120) / WIDTH, 90 + (y * 100) / HEIGHT, 200 - (x * 60) / WIDTH];
			const colour = bar ? [40, 44, 52] : inside ? [246, 246, 248] : [base[hue % 3]!, base[(hue + 1) % 3]!, base[(hue + 2) % 3]!];
			for (let c = 0; c < 3; c++) raw[row + 1 + x * 3 + c] = Math.min(255, colour[c]! + ((Math.random() * 8) | 0));
		}
	}
	const header = Buffer.alloc(13);
	header.writeUInt32BE(WIDTH);
	header.writeUInt32BE(HEIGHT, 4);
	header.set([8, 2, 0, 0, 0], 8);
	const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", header), chunk("IDAT", deflateSync(raw, { level: 1 })), chunk("IEND", Buffer.alloc(0))]);
	return png.toString("base64");
}

export function writeImagesSession(agentDir: string, cwd: string): string {
	const id = "0e9d4c2a-6b1f-4a7e-8c35-9f2b7d1e4a60";
	const images = [0, 1, 2, 0].map((hue) => ({ type: "image", mimeType: "image/png", data: screenPng(hue) }));
	const question = { role: "user", content: [{ type: "text", text: "These four screens show the settings page at each step: where does the layout break?" }, ...images] };
	const answer = assistant([{ type: "text", text: "In the third: the side panel's width is fixed, so at 1,280 px the form wraps under it." }]);
	writeSession(agentDir, { id, name: "Settings layout", cwd, ago: [8, 7], messages: [question, answer] });
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
