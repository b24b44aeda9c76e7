/** The workflow lifecycle as a pure state machine: every step from every state, and the actions offered. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { allowedActions, allows, checkAction, TERMINAL_STATUSES, transition } from "../../../src/features/workflows/lifecycle.js";
import { WORKFLOW_STATUSES } from "../../../src/features/workflows/schemas.js";

test("the happy path: queued → planning → running ⇄ paused → integrating → completed", () => {
	let status = transition("queued", "plan");
	assert.equal(status, "planning");
	status = transition(status, "planned");
	assert.equal(status, "running");
	status = transition(status, "pause");
	assert.equal(status, "paused");
	status = transition(status, "resume", true);
	assert.equal(status, "running");
	status = transition(status, "tasks_done");
	assert.equal(status, "integrating");
	assert.equal(transition(status, "integrated"), "completed");
	assert.equal(transition(status, "conflict"), "conflicted");
});

test("resuming a workflow whose plan was not finished plans again", () => {
	assert.equal(transition("paused", "resume", false), "planning");
});

test("a restart pauses whatever was moving; paused and terminal workflows stay", () => {
	for (const status of ["queued", "planning", "running", "integrating"] as const) assert.equal(transition(status, "interrupt"), "paused");
	for (const status of ["paused", "completed", "failed", "cancelled", "conflicted"] as const) assert.throws(() => transition(status, "interrupt"));
});

test("terminal states allow no running step; a conflicted one may be integrated again, cancelled or removed", () => {
	for (const status of TERMINAL_STATUSES) {
		for (const step of ["plan", "planned", "pause", "resume", "tasks_done", "integrated", "conflict", "fail"] as const) {
			assert.throws(() => transition(status, step), { code: "conflict" }, `${status} refuses ${step}`);
		}
	}
	assert.deepEqual(allowedActions("conflicted"), ["integrate", "cancel", "remove"]);
	assert.deepEqual(allowedActions("completed"), ["remove"]);
	assert.deepEqual(allowedActions("failed"), ["remove"]);
	assert.deepEqual(allowedActions("cancelled"), ["remove"]);
});

test("each action is offered only where it makes sense", () => {
	const table = Object.fromEntries(WORKFLOW_STATUSES.map((status) => [status, allowedActions(status)]));
	assert.deepEqual(table, {
		queued: ["cancel"],
		planning: ["pause", "cancel"],
		running: ["pause", "cancel"],
		paused: ["resume", "integrate", "cancel"],
		integrating: [],
		completed: ["remove"],
		failed: ["remove"],
		cancelled: ["remove"],
		conflicted: ["integrate", "cancel", "remove"],
	});
	for (const status of WORKFLOW_STATUSES) {
		for (const action of ["pause", "resume", "cancel", "integrate"] as const) {
			if (allows(status, action)) assert.doesNotThrow(() => transition(status, action));
			else assert.throws(() => transition(status, action), { code: "conflict" });
		}
	}
});

test("a refused action names the state and what is allowed instead", () => {
	assert.throws(() => checkAction("running", "resume"), { code: "conflict", message: "A workflow that is running cannot be resumed (allowed now: pause, cancel)" });
	assert.throws(() => checkAction("running", "remove"), { message: /cannot be removed \(cancel it first\)/ });
	assert.throws(() => checkAction("integrating", "cancel"), { message: /^A workflow that is integrating cannot be cancelled$/ });
});
