import assert from "node:assert/strict";
import { test } from "node:test";
import { HEAP_GROWTH_BYTES, IdleCollector, QUIET_CHECKS, QUIET_UTILIZATION, StartUpCollection } from "../../../src/shared/idle-collection.js";

const MIB = 1024 * 1024;

/** A collector over figures the test sets; a collection brings the heap back to `afterCollection`. */
function setup(start = 100 * MIB) {
	const state = { utilization: 0, heap: start, afterCollection: start, collections: 0 };
	const collector = new IdleCollector({
		utilization: () => state.utilization,
		heapBytes: () => state.heap,
		collect: () => {
			state.collections++;
			state.heap = state.afterCollection;
		},
	});
	return { state, collector };
}

test("after the heap grew well past the last collection, a collection runs once the loop has been quiet long enough", () => {
	const { state, collector } = setup();
	state.heap += HEAP_GROWTH_BYTES + MIB;
	state.utilization = 0.9; // a reply streaming
	for (let i = 0; i < 10; i++) assert.equal(collector.check(), false, "never while busy");
	state.utilization = QUIET_UTILIZATION / 2;
	for (let i = 1; i < QUIET_CHECKS; i++) assert.equal(collector.check(), false, "not before enough quiet checks");
	assert.equal(collector.check(), true);
	assert.equal(state.collections, 1);
	for (let i = 0; i < 10; i++) collector.check();
	assert.equal(state.collections, 1, "once: the heap is back where the collection left it");
});

test("a quiet loop with a heap that did not grow much, or that V8 shrank itself, is left alone", () => {
	const { state, collector } = setup(300 * MIB);
	state.heap = 120 * MIB; // V8 gave memory back: the new level is the baseline
	for (let i = 0; i < 10; i++) collector.check();
	state.heap = 120 * MIB + HEAP_GROWTH_BYTES - MIB;
	for (let i = 0; i < 10; i++) assert.equal(collector.check(), false);
	assert.equal(state.collections, 0);
});

test("a busy interval in between starts the quiet count again", () => {
	const { state, collector } = setup();
	state.heap += 2 * HEAP_GROWTH_BYTES;
	state.utilization = 0;
	for (let i = 1; i < QUIET_CHECKS; i++) collector.check();
	state.utilization = 0.5;
	assert.equal(collector.check(), false);
	state.utilization = 0;
	for (let i = 1; i < QUIET_CHECKS; i++) assert.equal(collector.check(), false);
	assert.equal(collector.check(), true);
});

test("start-up's collection runs once, at the first check that finds the loop quiet, whatever the heap's growth", () => {
	const state = { utilization: 0.5, collections: 0 };
	const startUp = new StartUpCollection({ utilization: () => state.utilization, collect: () => state.collections++ });
	for (let i = 0; i < 5; i++) assert.equal(startUp.check(), false, "never while a client keeps the loop busy");
	state.utilization = QUIET_UTILIZATION; // not below the bound: still busy
	assert.equal(startUp.check(), false);
	state.utilization = QUIET_UTILIZATION / 2;
	assert.equal(startUp.check(), true);
	for (let i = 0; i < 5; i++) assert.equal(startUp.check(), false, "once");
	assert.equal(state.collections, 1);
});
