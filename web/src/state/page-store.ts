/**
 * What the host page's controller and the guest view share: a state that views subscribe to, re-rendered at most
 * once per animation frame (a 20,000-delta reply renders at screen rate), and not while a pointer is pressed, with
 * passing toasts and sentences for the screen reader's polite live region.
 */

export interface Toast {
	id: number;
	text: string;
}

/** A sentence for the screen reader's polite live region (a finished reply, a connection change). */
export interface Announcement {
	id: number;
	text: string;
}

/** The part of a page's state that PageStore manages. */
export interface Notices {
	toasts: Toast[];
	announcement: Announcement | undefined;
}

/** How long a toast stays unless dismissed. */
const TOAST_MS = 8000;
/** Toasts shown at once: a new one pushes out the oldest. */
const MAX_TOASTS = 4;
/** The longest a press holds re-renders back (its release may never be heard: outside the window, a lost focus). */
const PRESS_HOLD_MAX_MS = 2000;

export abstract class PageStore<S extends Notices> {
	/** Set by the subclass's constructor; replaced whole on every change, so views can compare it. */
	state!: S;
	private readonly listeners = new Set<() => void>();
	private frame: number | undefined;
	/** Set while a pointer is pressed: notifications wait for its release (the timer ends a release never heard). */
	private pressed: ReturnType<typeof setTimeout> | undefined;
	private owed = false;
	private toastId = 0;
	private announcementId = 0;

	constructor() {
		// Nothing moves under a pressed button: an answer rendered between press and release (a panel's sections
		// above it growing as they loaded) moved a button away from the pointer, and the browser sent the click to
		// what both ends had in common, never to the button (the Doctor idle after a click: CI under load). The
		// hold ends a task after the release, once its click has been dispatched.
		if (typeof addEventListener !== "function") return; // a test's store, without a page
		const release = () => {
			clearTimeout(this.pressed);
			this.pressed = undefined;
			if (this.owed) this.schedule();
		};
		addEventListener("pointerdown", () => {
			clearTimeout(this.pressed);
			this.pressed = setTimeout(release, PRESS_HOLD_MAX_MS);
		}, true);
		for (const type of ["pointerup", "pointercancel"]) {
			addEventListener(type, () => {
				const press = this.pressed;
				setTimeout(() => this.pressed === press && release(), 0);
			}, true);
		}
	}

	subscribe(listener: () => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	dismissToast(id: number): void {
		this.update({ toasts: this.state.toasts.filter((t) => t.id !== id) } as Partial<S>);
	}

	/** Shows a toast; returns its id (to dismiss it early once what it says is over). */
	protected toast(text: string): number {
		const toast = { id: ++this.toastId, text };
		this.update({ toasts: [...this.state.toasts.slice(1 - MAX_TOASTS), toast] } as Partial<S>);
		window.setTimeout(() => this.dismissToast(toast.id), TOAST_MS);
		return toast.id;
	}

	/**
	 * Drops the notification waiting for the next frame: for the page's first render, which renders the state as
	 * it is (its views subscribe as they render), and would otherwise render all of it again a frame later, before
	 * its first paint.
	 */
	rendering(): void {
		if (this.frame !== undefined) cancelAnimationFrame(this.frame);
		this.frame = undefined;
	}

	protected announce(text: string): void {
		this.update({ announcement: { id: ++this.announcementId, text } } as Partial<S>);
	}

	protected update(patch: Partial<S>): void {
		this.state = { ...this.state, ...patch };
		this.schedule();
	}

	/** Coalesces notifications into one per animation frame, held while a pointer is pressed. */
	protected schedule(): void {
		if (this.frame !== undefined) return;
		this.frame = requestAnimationFrame(() => {
			this.frame = undefined;
			if (this.pressed === undefined) this.flush();
			else this.owed = true; // rendered at the release
		});
	}

	/**
	 * Notifies now, not at the next frame: what a click started (a busy state) renders with the click itself, so a
	 * click always shows at once that it was taken. Only for a user's own action: it renders through a press.
	 */
	flush(): void {
		this.rendering();
		this.owed = false;
		for (const listener of this.listeners) listener();
	}
}
