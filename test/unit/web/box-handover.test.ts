/**
 * The message box across a change of session: text typed while the change is under way goes with the session
 * asked for, the old session's draft is as it was when the change was asked for, and a change that fails leaves
 * the text where it was typed (web/src/state/box-handover.ts, drafts.ts).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { BoxHandover } from "../../../web/src/state/box-handover.js";
import { Drafts, typedSince } from "../../../web/src/state/drafts.js";

/** Drafts kept in a storage of the test's own (the page's is sessionStorage). */
function drafts(entries: Array<[string, string]> = []): { drafts: Drafts; stored: () => Array<[string, string]> } {
	let item = JSON.stringify(entries);
	const storage = { getItem: () => item, setItem: (_key: string, value: string) => void (item = value) };
	return { drafts: new Drafts("test.drafts", storage), stored: () => JSON.parse(item) as Array<[string, string]> };
}

describe("typedSince", () => {
	test("what was added, wherever it was added", () => {
		assert.equal(typedSince("", "hello"), "hello");
		assert.equal(typedSince("draft", "draft and more"), " and more");
		assert.equal(typedSince("draft", "first draft"), "first ");
		assert.equal(typedSince("ab", "aXYb"), "XY");
		assert.equal(typedSince("aa", "aaa"), "a", "a repeated letter is counted once");
		assert.equal(typedSince("same", "same"), "");
	});

	test("text deleted from the old draft is not typed text", () => {
		assert.equal(typedSince("draft", "dra"), "");
		assert.equal(typedSince("draft", ""), "");
		assert.equal(typedSince("abcabc", "abc"), "");
		assert.equal(typedSince("draft", "dXt"), "X", "a part replaced: the replacement");
	});

	test("long text in linear time, emoji and newlines whole", () => {
		const long = "x".repeat(200_000);
		assert.equal(typedSince(long, `${long}y`), "y");
		assert.equal(typedSince("a\n\nb", "a\n\n😀 b"), "😀 ");
		assert.equal(typedSince("😀", "😁"), "😁", "an emoji replaced by one of the same first half: the whole emoji");
	});
});

describe("Drafts.move", () => {
	test("the typed text goes after the other session's draft; the first draft is restored and stored", () => {
		const { drafts: d, stored } = drafts([["old", "old draft, more typed"], ["new", "its own"]]);
		d.move("old", "old draft", "new");
		assert.equal(d.get("old"), "old draft");
		assert.equal(d.get("new"), "its own\n\n, more typed");
		assert.deepEqual(new Map(stored()), new Map([["old", "old draft"], ["new", "its own\n\n, more typed"]]));
	});

	test("nothing typed: neither draft changes", () => {
		const { drafts: d } = drafts([["old", "kept"]]);
		d.move("old", "kept", "new");
		assert.equal(d.get("old"), "kept");
		assert.equal(d.get("new"), "");
	});
});

/** A change (numbered `asked`) asked for while "old" showed with the draft `kept`, under way, the old box holding `now` since. */
function changing(kept: string, now: string): { d: Drafts; handover: BoxHandover; asked: number } {
	const { drafts: d } = drafts([["old", kept]]);
	const handover = new BoxHandover(d);
	assert.equal(handover.box("old"), "old", "no change asked for: the session shown");
	const asked = handover.begin("old");
	d.set("old", now);
	return { d, handover, asked };
}

describe("BoxHandover", () => {
	test("the box stays the old session's while the change is under way, then the typed text moves with it", () => {
		const { d, handover, asked } = changing("kept", "kept typed");
		assert.equal(handover.box("new"), "old", "under way: still the old session's box, though the new one is shown");
		d.set("old", "kept typed on"); // keystrokes into the old box until it is replaced
		assert.equal(handover.end(asked), true);
		assert.equal(handover.box("new"), "new");
		assert.equal(d.get("new"), " typed on");
		assert.equal(d.get("old"), "kept");
		d.set("new", "typed in the new box");
		assert.equal(handover.box("new"), "new", "over: nothing moves again");
		assert.equal(d.get("new"), "typed in the new box");
		assert.equal(d.get("old"), "kept");
	});

	test("a change that fails leaves the typed text where it was typed", () => {
		const { d, handover, asked } = changing("kept", "kept typed");
		handover.end(asked);
		assert.equal(handover.box("old"), "old");
		assert.equal(d.get("old"), "kept typed");
	});

	test("a fork's draft (set by the page) stays first, the typed text after it", () => {
		const { d, handover, asked } = changing("", "typed");
		d.set("fork", "the message forked at");
		handover.end(asked);
		assert.equal(handover.box("fork"), "fork");
		assert.equal(d.get("fork"), "the message forked at\n\ntyped");
		assert.equal(d.get("old"), "");
	});

	test("changes asked for one after another: the text goes to the session shown once the last one is over", () => {
		const { d, handover, asked } = changing("kept", "kept a");
		const second = handover.begin("a"); // asked for as the first was shown
		d.set("old", "kept a b");
		assert.equal(handover.end(asked), false, "the last one is still under way");
		assert.equal(handover.box("a"), "old");
		assert.equal(handover.end(second), true);
		assert.equal(handover.box("b"), "b");
		assert.equal(d.get("b"), " a b");
		assert.equal(d.get("a"), "");
		assert.equal(d.get("old"), "kept");
	});

	test("an earlier change that has not answered does not hold up the last one; its end later changes nothing", () => {
		const { d, handover, asked } = changing("kept", "kept typed");
		const second = handover.begin("old");
		assert.equal(handover.end(second), true, "the last one asked for is over: so is the change");
		assert.equal(handover.box("b"), "b");
		assert.equal(d.get("b"), " typed");
		assert.equal(handover.end(asked), false);
		d.set("b", " typed on");
		assert.equal(handover.box("b"), "b");
		assert.equal(d.get("b"), " typed on");
		assert.equal(d.get("old"), "kept");
	});
});
