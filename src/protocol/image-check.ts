/** Image attachments must be what they say they are: the first bytes of the data match the declared type. */
import { CodedError } from "../shared/errors.js";

/** The image types a message may carry. */
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;

/** How each type's data starts (its file signature). */
const SIGNATURES: Record<(typeof IMAGE_TYPES)[number], (bytes: Buffer) => boolean> = {
	"image/png": (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
	"image/jpeg": (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
	"image/gif": (b) => ["GIF87a", "GIF89a"].includes(b.subarray(0, 6).toString("latin1")),
	"image/webp": (b) => b.subarray(0, 4).toString("latin1") === "RIFF" && b.subarray(8, 12).toString("latin1") === "WEBP",
};

/** Throws an `invalid_command` error naming the first attachment whose data is not of its declared type. */
export function checkImages(images: ReadonlyArray<{ data: string; mimeType: string }> | undefined): void {
	for (const [index, image] of (images ?? []).entries()) {
		const head = Buffer.from(image.data.slice(0, 24), "base64");
		const matches = SIGNATURES[image.mimeType as (typeof IMAGE_TYPES)[number]];
		if (!matches?.(head)) {
			throw new CodedError("invalid_command", `Invalid command: \`images.${index}\` is declared ${image.mimeType} but its data does not start like one`);
		}
	}
}

/** The image type `head` (a file's first bytes, at least 12) starts like, by the same signatures; undefined for none. */
export function imageTypeOf(head: Buffer): (typeof IMAGE_TYPES)[number] | undefined {
	return IMAGE_TYPES.find((type) => SIGNATURES[type](head));
}
