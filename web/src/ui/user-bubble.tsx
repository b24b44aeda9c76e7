/**
 * A user message's bubble: its text, redacted; the files it mentioned (pi's `@file` blocks at its start, see
 * mentions.ts) as chips naming them instead of their whole text; its images (content-images.tsx).
 */
import type { Message } from "../../../src/client/index.js";
import { redact } from "../render/redact";
import { splitMentions } from "../state/mentions";
import { contentText } from "../state/transcript";
import { ContentImages, type Load } from "./content-images";
import { Icon } from "./icons";

export function UserBubble({ content, load }: { content: Extract<Message, { role: "user" }>["content"]; load?: Load }) {
	const { files, text } = splitMentions(typeof content === "string" ? content : contentText(content));
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
			<ContentImages content={content} load={load} label="Images sent with the message" />
			{redact(text)}
		</div>
	);
}
