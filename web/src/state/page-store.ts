/**
 * What the host page's controller and the guest view share: a state that views subscribe to, re-rendered at most
 * once per animation frame (a 20,000-delta reply renders at screen rate), with passing toasts and sentences for
 * the screen reader's polite live region.
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

export abstract class PageStore<S extends Notices> {
	/** Set by the subclass's constructor; replaced whole on every change, so views can compare it. */
	state!: S;
	private readonly listeners = new Set<() => void>();
	private frame: number | undefined;
	private toastId = 0;
	private announcementId = 0;

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

	/** Coalesces notifications into one per animation frame. */
	protected schedule(): void {
		if (this.frame !== undefined) return;
		this.frame = requestAnimationFrame(() => {
			this.frame = undefined;
			for (const listener of this.listeners) listener();
		});
	}
}
