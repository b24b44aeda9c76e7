/**
 * A user message's bubble: its text, redacted; the files it mentioned (pi's `@file` blocks at its start, see
 * mentions.ts) as chips naming them instead of their whole text; its images as inline `data:` thumbnails, or,
 * for those the service left out of what it sent (docs/protocol.md, "Images on the wire"), a tile with their size.
 */
import type { ImageBlock, Message } from "../../../src/client/index.js";
import { redact } from "../render/redact";
import { dataUri } from "../state/attachments";
import { byteSize } from "../state/byte-size";
import { splitMentions } from "../state/mentions";
import { contentText } from "../state/transcript";
import { Icon } from "./icons";

export function UserBubble({ content }: { content: Extract<Message, { role: "user" }>["content"] }) {
	const { files, text } = splitMentions(typeof content === "string" ? content : contentText(content));
	const images = typeof content === "string" ? [] : content.filter((block): block is ImageBlock => block.type === "image" && /^image\/[a-z+.-]+$/.test(block.mimeType));
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
					{images.map((image, n) => (
						<li key={n}>
							{image.omittedBytes === undefined ? (
								<img src={dataUri(image)} alt={`Image ${n + 1}`} />
							) : (
								<span class="omitted" role="img" title="Too large to show here; the model got it" aria-label={`Image ${n + 1}, ${byteSize(image.omittedBytes)}, too large to show here`}>
									Image {byteSize(image.omittedBytes)}
								</span>
							)}
						</li>
					))}
				</ul>
			)}
			{redact(text)}
		</div>
	);
}
