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
	const raw = rawRows(width, height);
	for (let y = 0; y < height; y++) {
		const row = y * (1 + width * 3);
		for (let x = 0; x < width; x++) {
			const rgb = colour(x, y);
			for (let c = 0; c < 3; c++) raw[row + 1 + x * 3 + c] = Math.min(255, Math.max(0, rgb[c]! | 0));
		}
	}
	return encodePng(width, height, raw);
}

/**
 * A grainy gradient of `width`×`height` (`hue` 0-2 picks the colours): about as large as a photo. Written
 * straight into the rows rather than through rgbPng's function per pixel, whose arrays took half its CPU (two
 * 1500×1000 pictures: 0.45 s of CPU, now 0.25).
 */
export function grainyPng(width: number, height: number, hue = 0, grain = 8): Buffer {
	const raw = rawRows(width, height);
	const base = [0, 0, 0];
	for (let y = 0; y < height; y++) {
		const row = y * (1 + width * 3);
		for (let x = 0; x < width; x++) {
			base[0] = 60 + (x * 120) / width;
			base[1] = 90 + (y * 100) / height;
			base[2] = 200 - (x * 60) / width;
			for (let c = 0; c < 3; c++) raw[row + 1 + x * 3 + c] = Math.min(255, (base[(hue + c) % 3]! + ((Math.random() * grain) | 0)) | 0);
		}
	}
	return encodePng(width, height, raw);
}

/** The rows of an RGB picture, each after its filter byte (0: none). */
function rawRows(width: number, height: number): Buffer {
	return Buffer.alloc(height * (1 + width * 3));
}

function encodePng(width: number, height: number, raw: Buffer): Buffer {
	const header = Buffer.alloc(13);
	header.writeUInt32BE(width);
	header.writeUInt32BE(height, 4);
	header.set([8, 2, 0, 0, 0], 8);
	return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", header), chunk("IDAT", deflateSync(raw, { level: 1 })), chunk("IEND", Buffer.alloc(0))]);
}
