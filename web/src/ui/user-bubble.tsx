/**
 * A user message's bubble: its text, redacted; the files it mentioned (pi's `@file` blocks at its start, see
 * mentions.ts) as chips naming them instead of their whole text; its images as inline `data:` thumbnails, or,
 * for those the service left out of what it sent (docs/protocol.md, "Images on the wire"), a tile with their size
 * that, once the message's entry is known (`load`), asks for its image as it comes into view and shows it as the
 * others (entry-images.ts), or a Retry button saying why it could not.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { ImageBlock, Message } from "../../../src/client/index.js";
import { redact } from "../render/redact";
import { dataUri } from "../state/attachments";
import { byteSize } from "../state/byte-size";
import { splitMentions } from "../state/mentions";
import { contentText } from "../state/transcript";
import { Icon } from "./icons";

/** Loads image `index` of the message (its place among the message's images) as a `data:` URI. */
type Load = (index: number) => Promise<string>;

/** An image the service left out: asked for once its tile is in view, then shown as the others. */
function LeftOut({ n, bytes, load }: { n: number; bytes: number; load?: Load }) {
	const [shown, show] = useState<{ src?: string; error?: string; asked?: 1 }>({});
	const tile = useRef<HTMLSpanElement>(null);
	const ask = () => (show({ asked: 1 }), load!(n).then((src) => show({ src }), (error: Error) => show({ error: error.message })));
	useEffect(() => {
		if (!load) return;
		const seen = new IntersectionObserver(([entry]) => entry!.isIntersecting && (seen.disconnect(), ask()), { rootMargin: "200px" });
		seen.observe(tile.current!);
		return () => seen.disconnect();
	}, [!load]);
	const name = `Image ${n + 1}, ${byteSize(bytes)}`;
	if (shown.src) return <img src={shown.src} alt={`Image ${n + 1}`} />;
	if (shown.error) return <button type="button" class="omitted" title={shown.error} aria-label={`${name}, not loaded: ${shown.error}. Retry`} onClick={ask}>Retry</button>;
	return (
		<span ref={tile} class="omitted" role="img" aria-busy={!!shown.asked} aria-label={load ? name : `${name}, too large to show here`}>
			{shown.asked ? "Loading…" : `Image ${byteSize(bytes)}`}
		</span>
	);
}

export function UserBubble({ content, load }: { content: Extract<Message, { role: "user" }>["content"]; load?: Load }) {
	const { files, text } = splitMentions(typeof content === "string" ? content : contentText(content));
	// Numbered among all the message's images, as get_image counts them.
	const images = (typeof content === "string" ? [] : content.filter((block): block is ImageBlock => block.type === "image")).map((image, n) => ({ image, n })).filter(({ image }) => /^image\/[a-z+.-]+$/.test(image.mimeType));
	return (
		<div class="bubble">
			{files.length > 0 && (
				<ul class="chips" aria-label="Files sent with the message">
					{files.map((file) => (
						<li key={file}>
							<Icon name="file" />
							{redact(file)}
						</li>
					))}
				</ul>
			)}
			{images.length > 0 && (
				<ul class="user-images" aria-label="Images sent with the message">
					{images.map(({ image, n }) => (
						<li key={n}>{image.omittedBytes === undefined ? <img src={dataUri(image)} alt={`Image ${n + 1}`} /> : <LeftOut n={n} bytes={image.omittedBytes} load={load} />}</li>
					))}
				</ul>
			)}
			{redact(text)}
		</div>
	);
}
