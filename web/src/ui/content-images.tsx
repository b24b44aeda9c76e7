/**
 * The images of a message's content (a user's message, a tool's result) as inline `data:` thumbnails, or, for
 * those the service left out of what it sent (docs/protocol.md, "Images on the wire"), a tile with their size
 * that, once the message's entry is known (`load`), asks for its image as it comes into view and shows it as the
 * others (entry-images.ts), or a Retry button saying why it could not.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { ImageBlock, TextBlock } from "../../../src/client/index.js";
import { dataUri } from "../state/attachments";
import { byteSize } from "../state/byte-size";

/** Loads image `index` of the message (its place among the message's images) as a `data:` URI. */
export type Load = (index: number) => Promise<string>;

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

/** The content's images (only those of an `image/` type), numbered among all of them, as get_image counts them. */
export function ContentImages({ content, load, label }: { content: string | Array<TextBlock | ImageBlock>; load?: Load; label: string }) {
	const images = (typeof content === "string" ? [] : content.filter((block): block is ImageBlock => block.type === "image")).map((image, n) => ({ image, n })).filter(({ image }) => /^image\/[a-z+.-]+$/.test(image.mimeType));
	return images.length > 0 ? (
		<ul class="user-images" aria-label={label}>
			{images.map(({ image, n }) => (
				<li key={n}>{image.omittedBytes === undefined ? <img src={dataUri(image)} alt={`Image ${n + 1}`} /> : <LeftOut n={n} bytes={image.omittedBytes} load={load} />}</li>
			))}
		</ul>
	) : null;
}
