/**
 * The images of recorded messages the service sent without their data (`omittedBytes`: docs/protocol.md, "Images
 * on the wire"), read with get_image as their tiles come into view. One request at a time: each answer may be
 * 6.7 MiB, and the service takes one client's in turn anyway. Answers are kept, the most recently used last, up
 * to MAX_KEPT_CHARS, so scrolling back and forth asks again neither every time nor holds a long session's every
 * image; a refusal is not kept, so a retry asks again.
 */
import type { SkiffClient } from "../../../src/client/index.js";
import { safeImageSrc } from "../render/safe-url.js";
import { dataUri } from "./attachments.js";

const MAX_KEPT_CHARS = 40 * 1024 * 1024;
type Kept = { src: Promise<string>; chars: number };
const kept = new Map<string, Kept>();
let queue: Promise<unknown> = Promise.resolve();

/** A `data:` URI of image `index` of entry `entryId`; rejects with the service's reason, or when not an image the page shows. */
export function entryImage(client: SkiffClient, sessionId: string, entryId: string, index: number): Promise<string> {
	const key = `${sessionId} ${entryId} ${index}`;
	let found = kept.get(key);
	if (found) kept.delete(key);
	else {
		const item = (found = { chars: 0 } as Kept);
		item.src = queue.then(async () => {
			const src = safeImageSrc(dataUri(await client.call("get_image", { entryId, index }, { sessionId })));
			if (!src) throw new Error("Not an image the page shows");
			item.chars = src.length;
			let total = 0;
			for (const { chars } of kept.values()) total += chars;
			for (const [old, { chars }] of kept) if (total > MAX_KEPT_CHARS && chars && old !== key) (total -= chars), kept.delete(old);
			return src;
		});
		item.src.catch(() => kept.get(key) === item && kept.delete(key));
		queue = item.src.catch(() => undefined);
	}
	kept.set(key, found);
	return found.src;
}
