/**
 * The page's store: notifications coalesced into one per frame, and the first render's own frame dropped; held
 * while a pointer is pressed (until a task after its release, or a bound); a click's own change notified at once.
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, mock, test } from "node:test";
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
	delete globals.addEventListener;
	mock.timers.reset();
});

/**
 * A store made where the page's pointer events reach it (`pointer(type)` sends one), on fake timers, with a view
 * that counts its notifications (`notified()`).
 */
function pressableStore(): { store: Store; pointer(type: "pointerdown" | "pointerup" | "pointercancel"): void; notified(): number } {
	mock.timers.enable({ apis: ["setTimeout"] });
	const handlers = new Map<string, () => void>();
	globals.addEventListener = (type: string, handler: () => void) => handlers.set(type, handler);
	const store = new Store();
	let notified = 0;
	store.subscribe(() => notified++);
	return { store, pointer: (type) => handlers.get(type)!(), notified: () => notified };
}

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

test("flush notifies at once and drops the frame asked for (a click's busy state renders with the click)", () => {
	const store = new Store();
	let notified = 0;
	store.subscribe(() => notified++);
	store.set(1);
	store.flush();
	assert.equal(notified, 1);
	frame();
	assert.equal(notified, 1, "not again at the frame");
	store.set(2);
	frame();
	assert.equal(notified, 2, "later changes wait for their frame again");
});

test("a press holds notifications until a task after its release; a flush renders through it", () => {
	const { store, pointer, notified } = pressableStore();
	pointer("pointerdown");
	store.set(1); // an answer arriving while the button is held down
	frame();
	assert.equal(notified(), 0, "nothing moves under the pressed button");
	pointer("pointerup");
	frame();
	assert.equal(notified(), 0, "not before the click that follows the release");
	mock.timers.tick(0);
	assert.equal(notified(), 0, "asked for at the release's next task…");
	frame();
	assert.equal(notified(), 1, "…and rendered at the frame after it");
	pointer("pointerdown");
	store.flush(); // what the user's own click changed
	assert.equal(notified(), 2);
});

test("a press whose release is never heard holds notifications 2 s at most", () => {
	const { store, pointer, notified } = pressableStore();
	pointer("pointerdown");
	store.set(1);
	frame();
	mock.timers.tick(1999);
	frame();
	assert.equal(notified(), 0);
	mock.timers.tick(1);
	frame();
	assert.equal(notified(), 1);
});

test("a second press before the first one's release task keeps holding", () => {
	const { store, pointer, notified } = pressableStore();
	pointer("pointerdown");
	pointer("pointercancel");
	pointer("pointerdown"); // a double click's second press
	mock.timers.tick(0);
	store.set(1);
	frame();
	assert.equal(notified(), 0, "the first release does not end the second press");
	pointer("pointerup");
	mock.timers.tick(0);
	frame();
	assert.equal(notified(), 1);
});
