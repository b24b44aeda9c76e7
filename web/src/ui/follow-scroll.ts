/**
 * Keeps a scroller at its bottom while the conversation grows, until the user scrolls away; scrolling back to
 * the bottom (or `jump`) follows again. Only the user's own scrolling stops following: a wheel, a touch, a
 * scrolling key or the scrollbar, or any scroll that is not caused by a change of the content's height.
 * Height changes (a reply turning into formatted markdown, an image loading, tool output, a resize, lazily
 * rendered messages) re-pin the view instead.
 *
 * Not following, the reader's text stays where it is: whatever is added, removed or resized above or below it
 * (a reply from another client, a queued message, earlier messages put in front), the element at the top of the
 * view (the anchor) keeps its place on the screen. The browser's own scroll anchoring is off (transcript.css):
 * it would fight the pinning while following, and does not cover what the page renders between two frames.
 */

/** Closer than this to the bottom counts as at the bottom. */
const AT_BOTTOM_PX = 24;
/** How long after a wheel, touch or key a scroll still counts as the user's (momentum scrolling included). */
const USER_SCROLL_MS = 1000;
const SCROLL_KEYS = new Set(["ArrowUp", "ArrowDown", "PageUp", "PageDown", "Home", "End", " "]);

export class FollowScroll {
	following = true;
	private userUntil = 0;
	private dragging = false;
	private height = 0;
	private readonly resizes: ResizeObserver;
	/**
	 * Not following: the first element reaching into the view, to keep it where it is on the screen, and its top
	 * in the content (its top on the screen plus the scroll offset): a scroll since it was found (a script's,
	 * reported by its scroll event only in the next frame) moves it on the screen, but not in the content.
	 */
	private anchor: { el: Element; top: number } | undefined;

	constructor(
		private readonly scroller: HTMLElement,
		private readonly content: HTMLElement,
		private readonly changed: (following: boolean) => void,
		/** Whether there is a conversation to follow (a notice alone is read from its top). */
		private readonly hasConversation: () => boolean,
	) {
		scroller.addEventListener("wheel", this.onWheel, { passive: true });
		scroller.addEventListener("touchstart", this.onUserInput, { passive: true });
		scroller.addEventListener("touchmove", this.onUserInput, { passive: true });
		scroller.addEventListener("keydown", this.onKey);
		scroller.addEventListener("pointerdown", this.onPointerDown);
		scroller.addEventListener("scroll", this.onScroll, { passive: true });
		window.addEventListener("pointerup", this.onPointerUp);
		this.resizes = new ResizeObserver(() => this.pin());
		this.resizes.observe(scroller);
		this.resizes.observe(content);
	}

	dispose(): void {
		this.resizes.disconnect();
		window.removeEventListener("pointerup", this.onPointerUp);
	}

	/** While following: to the bottom; else the text in view where it was (after every render and every change of size). */
	pin(): void {
		if (this.following && this.hasConversation()) this.scroller.scrollTop = this.scroller.scrollHeight;
		else if (!this.following) this.keep();
		this.height = this.scroller.scrollHeight;
	}

	/**
	 * After a render: as pin, but with nothing to pin (following, and no conversation: a new session, the setup
	 * card) no size is read, which would lay the page out before its frame does; the resize observer pins once
	 * the frame has laid it out.
	 */
	rendered(): void {
		if (!this.following || this.hasConversation()) this.pin();
	}

	/**
	 * Scrolls by however far the anchor moved in the content, so that the reader's text stays put. Not by how far it
	 * moved on the screen: that also holds any scroll not yet reported, which this would undo (a script scrolling
	 * at each frame, as the benchmark does, lost every other step to messages above changing size).
	 */
	private keep(): void {
		const anchor = this.anchor;
		if (anchor?.el.isConnected) {
			const moved = this.contentTop(anchor.el) - anchor.top;
			if (moved !== 0) this.scroller.scrollTop += moved;
		}
		this.anchor = this.findAnchor();
	}

	/**
	 * The first child of the content whose bottom is below the top of the view, and in a group of messages
	 * (transcript-view.tsx) the first such message of the group: a message of it growing above the view does not
	 * move the group.
	 */
	private findAnchor(): { el: Element; top: number } | undefined {
		const viewTop = this.scroller.getBoundingClientRect().top;
		let found = firstBelow(this.content.children, viewTop);
		if (found?.classList.contains("msgs")) found = firstBelow(found.children, viewTop) ?? found;
		return found && { el: found, top: this.contentTop(found) };
	}

	private contentTop(el: Element): number {
		return el.getBoundingClientRect().top + this.scroller.scrollTop;
	}

	/** Back to the newest message, following again. */
	jump(): void {
		this.set(true);
		this.pin();
	}

	private atBottom(): boolean {
		const el = this.scroller;
		return el.scrollHeight - el.scrollTop - el.clientHeight <= AT_BOTTOM_PX;
	}

	private set(following: boolean): void {
		if (following === this.following) return;
		this.following = following;
		this.anchor = following ? undefined : this.findAnchor();
		this.changed(following);
	}

	private readonly onWheel = (event: WheelEvent): void => {
		this.userUntil = performance.now() + USER_SCROLL_MS;
		if (event.deltaY < 0 && this.scroller.scrollTop > 0) this.set(false);
	};

	private readonly onUserInput = (): void => {
		this.userUntil = performance.now() + USER_SCROLL_MS;
	};

	private readonly onKey = (event: KeyboardEvent): void => {
		if (event.target === this.scroller && SCROLL_KEYS.has(event.key)) this.onUserInput();
	};

	private readonly onPointerDown = (event: PointerEvent): void => {
		if (event.target === this.scroller) this.dragging = true; // on the scrollbar, not on a message
	};

	private readonly onPointerUp = (): void => {
		if (!this.dragging) return;
		this.dragging = false;
		this.onUserInput();
	};

	private readonly onScroll = (): void => {
		const height = this.scroller.scrollHeight;
		const resized = height !== this.height;
		this.height = height;
		if (this.dragging || performance.now() < this.userUntil || !resized) this.set(this.atBottom());
		else if (this.following) this.pin();
		// Where the reader now is (their scroll, or the browser's after a change of size) is what stays put.
		if (!this.following) this.anchor = this.findAnchor();
	};
}

/** The first of `children` whose bottom is below `top` (a binary search: their tops only grow). */
function firstBelow(children: HTMLCollection, top: number): Element | undefined {
	let low = 0;
	let high = children.length - 1;
	let found: Element | undefined;
	while (low <= high) {
		const mid = (low + high) >> 1;
		const child = children[mid]!;
		if (child.getBoundingClientRect().bottom > top) {
			found = child;
			high = mid - 1;
		} else low = mid + 1;
	}
	return found;
}
