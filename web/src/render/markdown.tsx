/**
 * Markdown as Preact elements, safely: the text is redacted before anything else, marked's lexer tokenizes
 * it (CommonMark + GFM), and markdown-elements.ts builds elements from the tokens, never HTML strings.
 * `streaming` renders a reply as it grows: only what is safe so far shows (text-window.ts: the unfinished
 * end that could still become a secret waits), complete blocks keep their tokens and are not re-rendered,
 * only the last block is lexed and rendered again, with its open inline markup closed for display.
 */
import { Component, type ComponentChildren } from "preact";
import type { Token } from "marked";
import { blockElement } from "./markdown-elements";
import { lexMarkdown, MarkdownStream, type MarkdownView } from "./markdown-stream";
import { redact } from "./redact";
import { GrowingText } from "./text-window";
import "./markdown.css";

export { CodeBlock } from "./code-block";

export interface MarkdownProps {
	text: string;
	/** The text is still growing (a streaming reply). */
	streaming?: boolean;
}

export class Markdown extends Component<MarkdownProps> {
	private stream = new MarkdownStream();
	private growing = new GrowingText();
	/** The finished text's tokens, by the text as given: a message rendered again (its actions changed) is not redacted again. */
	private finished?: { text: string; view: MarkdownView };

	override render({ text, streaming }: MarkdownProps) {
		let view: MarkdownView;
		if (streaming) view = this.stream.update(this.growing.update(text));
		else {
			if (this.finished?.text !== text) this.finished = { text, view: lexMarkdown(redact(text)) };
			view = this.finished.view;
		}
		return (
			<div class="md">
				{view.tokens.map((token, n) => (
					<Block key={n} token={token} linksKey={view.linksKey} />
				))}
			</div>
		);
	}
}

interface BlockProps {
	token: Token;
	linksKey: string;
}

/**
 * One top-level block, rendered again only when its source (or the link definitions) changed: the blocks
 * of a streaming reply before its last one are kept as they are, and when the reply finishes the same
 * blocks lexed afresh compare equal, so the page does not repaint (or jump) at the end.
 */
class Block extends Component<BlockProps> {
	override shouldComponentUpdate(next: BlockProps): boolean {
		return next.token !== this.props.token && (next.token.raw !== this.props.token.raw || next.linksKey !== this.props.linksKey);
	}

	override render({ token }: BlockProps): ComponentChildren {
		return blockElement(token);
	}
}
