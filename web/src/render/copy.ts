/** Copying text to the clipboard from a button that then says so for a moment: code blocks and whole messages. */
import { useState } from "preact/hooks";

/** How long a button says "Copied" after a copy. */
const COPIED_NOTICE_MS = 1200;

/** Whether a copy just happened, and the copy itself (nothing happens where the page may not write the clipboard). */
export function useCopy(): [boolean, (text: string) => void] {
	const [copied, setCopied] = useState(false);
	const copy = (text: string) => {
		void navigator.clipboard?.writeText(text).then(() => {
			setCopied(true);
			setTimeout(() => setCopied(false), COPIED_NOTICE_MS);
		});
	};
	return [copied, copy];
}
