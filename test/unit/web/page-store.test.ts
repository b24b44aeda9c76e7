/** The page's store: notifications coalesced into one per frame, and the first render's own frame dropped. */
import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import { type Notices, PageStore } from "../../../web/src/state/page-store.js";

interface State extends Notices {
	n: number;
}

class Store extends PageStore<State> {
	constructor() {
		super();
		this.state = { n: 0, toasts: [], announcement: undefined };
	}
	set(n: number): void {
		this.update({ n });
	}
}

/** The frames asked for and not cancelled, run by `frame()`. */
let frames = new Map<number, () => void>();
let nextFrame = 0;
const globals = globalThis as Record<string, unknown>;

beforeEach(() => {
	frames = new Map();
	globals.requestAnimationFrame = (callback: () => void) => (frames.set(++nextFrame, callback), nextFrame);
	globals.cancelAnimationFrame = (id: number) => frames.delete(id);
});
afterEach(() => {
	delete globals.requestAnimationFrame;
	delete globals.cancelAnimationFrame;
});

function frame(): void {
	const due = [...frames.values()];
	frames.clear();
	for (const callback of due) callback();
}

test("changes within a frame notify once, at the frame", () => {
	const store = new Store();
	let notified = 0;
	store.subscribe(() => notified++);
	store.set(1);
	store.set(2);
	assert.equal(notified, 0);
	frame();
	assert.equal(notified, 1);
	assert.equal(store.state.n, 2);
});

test("the first render drops the frame its state already asked for; a change after it is notified", () => {
	const store = new Store();
	store.set(1); // the first bind's answers, before any view
	let notified = 0;
	store.rendering();
	store.subscribe(() => notified++); // the view, rendering the state as it is
	frame();
	assert.equal(notified, 0, "no second render of what the first one showed");
	store.set(2);
	frame();
	assert.equal(notified, 1);
});

test("rendering with no frame asked for changes nothing", () => {
	const store = new Store();
	let notified = 0;
	store.subscribe(() => notified++);
	store.rendering();
	store.set(1);
	frame();
	assert.equal(notified, 1);
});
