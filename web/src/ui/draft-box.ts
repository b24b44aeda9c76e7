/**
 * A message box's text, kept as its draft on every change, and the box itself, grown with its text up to its
 * CSS max-height: what the main composer and a side chat tab's box share.
 */
import type { RefObject } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";

export interface DraftBox {
	text: string;
	/** Sets the text and saves it as the draft. */
	change(text: string): void;
	box: RefObject<HTMLTextAreaElement | null>;
}

/**
 * The browser grows the box with its text (and its placeholder) itself: CSS `field-sizing` (Chromium). Elsewhere the
 * box is measured after each change, which lays the page out there and then: the longest step of the page's first
 * render, traced.
 */
const SIZED_BY_BROWSER = typeof CSS !== "undefined" && CSS.supports("field-sizing", "content");

export function useDraftBox(draft: string, onDraft: (text: string) => void): DraftBox {
	const [text, setText] = useState(draft);
	const box = useRef<HTMLTextAreaElement>(null);
	useLayoutEffect(() => {
		const el = box.current!;
		if (SIZED_BY_BROWSER) return void el.style.setProperty("field-sizing", "content");
		el.style.height = "auto";
		el.style.height = `${el.scrollHeight}px`;
	}, [text]);
	return {
		text,
		change: (value) => {
			setText(value);
			onDraft(value);
		},
		box,
	};
}
