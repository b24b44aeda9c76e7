/**
 * Images pasted or dropped into the composer, made ready to go with a message as pi image content: only the
 * types the service takes (PNG, JPEG, GIF, WebP), at most MAX_IMAGES, anything larger than MAX_SIDE pixels
 * drawn smaller on a canvas first (a phone's photo is 4,000 px and more; models scale it down anyway), then at
 * most MAX_IMAGE_BYTES each. Every refusal is a sentence naming the file and the limit. Each is uploaded as it
 * is attached (POST /attachments) and the message names it by id, so eight of 5 MiB go where one WebSocket
 * message holds 4 MiB; files mentioned with `@` that are images go inline.
 */
import type { InlineImage } from "../../../src/client/index.js";
import { byteSize } from "./byte-size.js";

export interface Attachment {
	type: "image";
	mimeType: InlineImage["mimeType"];
	/** Base64, for the thumbnail (and inline, when it was never uploaded). */
	data: string;
	/** What is uploaded. */
	blob?: Blob;
	/** The upload's id, once the service has kept it. */
	id?: string;
	/** Why its upload failed. */
	failed?: string;
	/**
	 * The upload under way: resolves the image with its id, or with why it failed. Kept with the image, so a box
	 * made anew while it uploads (another session shown, text put back) learns how it ended.
	 */
	uploaded?: Promise<Attachment>;
}

export const IMAGE_TYPES: readonly string[] = ["image/png", "image/jpeg", "image/gif", "image/webp"];
export const MAX_IMAGES = 8;
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
export const MAX_SIDE = 2048;
/**
 * The most one message may carry inline, its text (with the files it mentions) and their images' base64
 * together: the service closes a connection whose message is over 4 MiB (MAX_FRAME_BYTES in
 * src/listener/limits.ts), so this leaves room for the rest of the command. Uploaded images do not count.
 */
export const MAX_MESSAGE_BYTES = 3.75 * 1024 * 1024;

/** The file as an attachment, downsized when larger than MAX_SIDE; rejects with the sentence to show. */
export async function attachImage(file: File): Promise<Attachment> {
	const name = file.name || "The pasted image";
	if (!IMAGE_TYPES.includes(file.type)) throw new Error(`${name} is ${file.type || "not an image"}: only PNG, JPEG, GIF and WebP images can be attached`);
	const bitmap = await createImageBitmap(file).catch(() => {
		throw new Error(`${name} could not be read as an image`);
	});
	let blob: Blob = file;
	const scale = MAX_SIDE / Math.max(bitmap.width, bitmap.height);
	if (scale < 1) {
		const canvas = document.createElement("canvas");
		canvas.width = Math.round(bitmap.width * scale);
		canvas.height = Math.round(bitmap.height * scale);
		canvas.getContext("2d")!.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
		// A canvas cannot write GIF: a large one becomes a PNG (its first frame).
		const type = file.type === "image/gif" ? "image/png" : file.type;
		blob = (await new Promise<Blob | null>((done) => canvas.toBlob(done, type, 0.9))) ?? file;
	}
	bitmap.close();
	if (blob.size > MAX_IMAGE_BYTES) throw new Error(`${name} is ${byteSize(blob.size)}${blob === file ? "" : " after downsizing"}: an image may be at most ${byteSize(MAX_IMAGE_BYTES)}`);
	const url = await new Promise<string>((done, fail) => {
		const reader = new FileReader();
		reader.onload = () => done(String(reader.result));
		reader.onerror = () => fail(new Error(`${name} could not be read`));
		reader.readAsDataURL(blob);
	});
	return { type: "image", mimeType: blob.type as Attachment["mimeType"], data: url.slice(url.indexOf(",") + 1), blob };
}

/** Why this text and these images cannot go together in one message, or undefined when they can. */
export function tooMuch(images: readonly Attachment[], text = ""): string | undefined {
	if (images.length > MAX_IMAGES) return `At most ${MAX_IMAGES} images go with one message`;
	const bytes = images.reduce((sum, image) => sum + (image.id ? 0 : image.data.length), new TextEncoder().encode(text).length);
	if (bytes > MAX_MESSAGE_BYTES) {
		return `The message comes to ${byteSize(bytes)} with its images and files; one message carries at most ${byteSize(MAX_MESSAGE_BYTES)}: remove an image or a file, or send it in another message`;
	}
	return undefined;
}

/** How a message names the image: by its upload, else inline. */
export const wireImage = ({ id, data, mimeType }: Attachment) => (id ? { type: "image" as const, attachmentId: id } : { type: "image" as const, data, mimeType });

export const dataUri = (image: { mimeType: string; data: string }) => `data:${image.mimeType};base64,${image.data}`;
