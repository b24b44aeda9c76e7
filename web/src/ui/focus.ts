/** Focus moves the page makes itself: back to the message box after sending, switching or closing a dialog. */

export const COMPOSER_ID = "composer";

export function focusComposer(): void {
	const box = document.getElementById(COMPOSER_ID) as HTMLTextAreaElement | null;
	if (!box) return;
	box.focus();
	box.setSelectionRange(box.value.length, box.value.length);
}

/** Whether typing goes into a field (so single-key shortcuts such as `?` must not act). */
export function typingInField(target: EventTarget | null): boolean {
	return target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
}
