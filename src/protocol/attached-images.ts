/**
 * The images a message carries, as a command names them: inline base64 (as in pi's RPC, for small images and
 * programs written for pi) or the id of an upload (POST /attachments, attachment-store.ts). Each is made pi
 * image content before the session sees it; an unknown or expired id refuses the whole message, before
 * anything is recorded.
 */
import { Type } from "typebox";
import { CodedError } from "../shared/errors.js";
import type { ImageAttachment } from "../agent/types.js";
import { ATTACHMENT_ID_PATTERN, type AttachmentStore } from "./attachment-store.js";
import { checkImages, IMAGE_TYPES } from "./image-check.js";

/** Images one message may carry, inline and uploaded together. */
export const MAX_IMAGES = 8;

const Inline = Type.Object(
	{
		type: Type.Literal("image"),
		data: Type.String({ minLength: 1, pattern: "^[A-Za-z0-9+/]+={0,2}$", description: "Base64 image data (checked against mimeType)." }),
		mimeType: Type.Enum(IMAGE_TYPES),
	},
	{ additionalProperties: false, title: "InlineImage" },
);
const Uploaded = Type.Object(
	{
		type: Type.Literal("image"),
		attachmentId: Type.String({ pattern: ATTACHMENT_ID_PATTERN, description: "The id POST /attachments answered with (its type is the upload's)." }),
	},
	{ additionalProperties: false, title: "UploadedImage" },
);

export const ImagesSchema = Type.Optional(
	Type.Array(Type.Union([Inline, Uploaded]), {
		maxItems: MAX_IMAGES,
		description:
			"Images attached to the message: inline base64 (the 4 MiB frame limit bounds them) or uploads by id (5 MiB each). " +
			"Refused (`conflict`, before anything is recorded) when the session's model does not take images; an unknown or expired " +
			"upload is `not_found`. Uploads are removed once the message is accepted",
	}),
);

export type ImageParams = Array<{ type: "image"; data: string; mimeType: string } | { type: "image"; attachmentId: string }>;

/**
 * Sends a message with its images as pi image content: `send` gets them once every upload is read. The uploads
 * of a message `send` accepted are removed; those of a refused one may go with another message.
 */
export async function sendWithImages(
	images: ImageParams | undefined,
	store: AttachmentStore | undefined,
	send: (images: ImageAttachment[] | undefined) => Promise<void>,
): Promise<void> {
	if (!images?.length) return send(undefined);
	const inline = images.filter((image) => "data" in image);
	checkImages(inline);
	const uploads = images.flatMap((image) => ("attachmentId" in image ? [image.attachmentId] : []));
	const read = uploads.length ? await readUploads(store, uploads) : [];
	let next = 0;
	try {
		await send(images.map((image) => ("data" in image ? image : read[next++]!)));
	} catch (error) {
		store?.unclaim(uploads);
		throw error;
	}
	await store?.release(uploads);
}

function readUploads(store: AttachmentStore | undefined, ids: string[]) {
	if (!store) throw new CodedError("unavailable", "Uploaded images are not kept here (only a listener takes POST /attachments): send the image's data inline");
	return store.read(ids);
}
