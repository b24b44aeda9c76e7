/**
 * PNG pictures made in a test or a screenshot script (8-bit RGB, zlib and a CRC: no library), from a function
 * giving each pixel's colour. Grain in the colours keeps a picture as large as a photo once compressed.
 */
import { crc32, deflateSync } from "node:zlib";

/** A PNG chunk: its length, type, data and CRC. */
function chunk(type: string, data: Buffer): Buffer {
	const head = Buffer.alloc(8);
	head.writeUInt32BE(data.length);
	head.write(type, 4, "latin1");
	const crc = Buffer.alloc(4);
	crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])));
	return Buffer.concat([head, data, crc]);
}

/** A `width`×`height` PNG whose pixel at (x, y) has the colour `colour` gives ([r, g, b], each 0-255). */
export function rgbPng(width: number, height: number, colour: (x: number, y: number) => readonly number[]): Buffer {
	const raw = Buffer.alloc(height * (1 + width * 3));
	for (let y = 0; y < height; y++) {
		const row = y * (1 + width * 3);
		for (let x = 0; x < width; x++) {
			const rgb = colour(x, y);
			for (let c = 0; c < 3; c++) raw[row + 1 + x * 3 + c] = Math.min(255, Math.max(0, rgb[c]! | 0));
		}
	}
	const header = Buffer.alloc(13);
	header.writeUInt32BE(width);
	header.writeUInt32BE(height, 4);
	header.set([8, 2, 0, 0, 0], 8);
	return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", header), chunk("IDAT", deflateSync(raw, { level: 1 })), chunk("IEND", Buffer.alloc(0))]);
}

/** A grainy gradient of `width`×`height` (`hue` 0-2 picks the colours): about as large as a photo. */
export function grainyPng(width: number, height: number, hue = 0, grain = 8): Buffer {
	return rgbPng(width, height, (x, y) => {
		const base = [60 + (x * 120) / width, 90 + (y * 100) / height, 200 - (x * 60) / width];
		return [0, 1, 2].map((c) => base[(hue + c) % 3]! + ((Math.random() * grain) | 0));
	});
}
