/**
 * The todo plan of one session against an in-memory session (no pi): one snapshot per change and none for a
 * refusal or a change that changes nothing, the hidden context while tasks are open, tree navigation restoring
 * the plan of the branch, damaged or newer snapshots passed over, and changes refused while the session moves.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { restorePlan, TODO_CONTEXT_TYPE, TODO_ENTRY_TYPE, TodoSession } from "../../../src/features/todo/session.js";
import type { TodoOp, TodoPhaseView, TodoPlan } from "../../../src/features/todo/schemas.js";
import type { CodedError } from "../../../src/shared/errors.js";
import { FakeFeatureSession } from "../../support/fake-feature-session.js";

function open(session = new FakeFeatureSession()): { todo: TodoSession; session: FakeFeatureSession } {
	const todo = new TodoSession();
	todo.bind(session);
	return { todo, session };
}

function statuses(plan: TodoPlan | { phases: TodoPhaseView[] }): string[] {
	return plan.phases.flatMap((p) => p.tasks.map((t) => `${t.id}:${t.status}`));
}

const INIT: TodoOp = { op: "init", list: [{ phase: "P", items: ["a", { content: "b", dependsOn: ["a"] }] }] };

function refusedUnchanged(todo: TodoSession, session: FakeFeatureSession, code: string, action: () => unknown): CodedError {
	const entries = session.entries.size;
	const events = session.events.length;
	const before = JSON.stringify(todo.plan());
	let failure: CodedError | undefined;
	try {
		action();
	} catch (error) {
		failure = error as CodedError;
	}
	assert.ok(failure, "refused");
	assert.equal(failure.code, code, failure.message);
	assert.equal(session.entries.size, entries, "nothing recorded");
	assert.equal(session.events.length, events, "nothing announced");
	assert.equal(JSON.stringify(todo.plan()), before, "the plan is as it was");
	return failure;
}

test("each change is one snapshot and one todo_updated; a view, an identical init or a refusal neither", () => {
	const { todo, session } = open();
	todo.apply(INIT, "tool");
	todo.apply({ op: "view" }, "tool");
	todo.apply(INIT, "command");
	todo.apply({ op: "done", task: "a" }, "command");
	refusedUnchanged(todo, session, "conflict", () => todo.apply({ op: "add_dependency", task: "a", dependsOn: ["b"] }, "command"));
	refusedUnchanged(todo, session, "not_found", () => todo.apply({ op: "start", task: "zz" }, "command"));
	refusedUnchanged(todo, session, "conflict", () => todo.set([{ name: "X", tasks: [{ content: "x" }, { content: "x" }] }]));
	const snapshots = session.customEntries(TODO_ENTRY_TYPE).map((e) => statuses((e.data as { plan: TodoPlan }).plan));
	assert.deepEqual(snapshots, [["t1:in_progress", "t2:pending"], ["t1:completed", "t2:in_progress"]]);
	const updates = session.sent("todo_updated");
	assert.deepEqual(updates.map((e) => e.cause), ["tool", "command"]);
	assert.deepEqual(updates[1]!.completed, [{ id: "t1", phase: "P", content: "a" }]);
	assert.deepEqual(statuses({ phases: updates[1]!.phases as TodoPhaseView[] }), ["t1:completed", "t2:in_progress"]);
});

test("an empty plan refuses every op but init, append and view; so does a session not open yet or moving in its tree", () => {
	const { todo, session } = open();
	for (const op of ["start", "done", "drop", "rm", "add_dependency", "remove_dependency"] as const) {
		assert.match(refusedUnchanged(todo, session, "conflict", () => todo.apply({ op, task: "t1", dependsOn: ["t2"] }, "command")).message, /The plan is empty/);
	}
	assert.throws(() => new TodoSession().apply(INIT, "command"), { code: "unavailable" });
	session.moving = true;
	refusedUnchanged(todo, session, "busy", () => todo.apply(INIT, "command"));
	refusedUnchanged(todo, session, "busy", () => todo.set([{ name: "X", tasks: [{ content: "x" }] }]));
	assert.equal(todo.apply({ op: "view" }, "command").changed, false, "a view is fine");
});

test("the open plan is hidden context before each prompt; a settled or empty one is not", async () => {
	const { todo } = open();
	assert.equal(await todo.contextForPrompt(), undefined);
	todo.apply(INIT, "tool");
	const context = await todo.contextForPrompt();
	assert.equal(context?.customType, TODO_CONTEXT_TYPE);
	assert.match(context!.content, /\[>\] t1 a\n\[ \] t2 b \(blocked by t1\)$/);
	todo.apply({ op: "done" }, "tool");
	assert.equal(await todo.contextForPrompt(), undefined);
	assert.deepEqual(todo.activeToolNames(), ["todo"]);
});

test("tree navigation restores the plan of the branch, announced only when it differs; a later change branches there", () => {
	const { todo, session } = open();
	const root = session.appendCustomEntry("message", {});
	todo.apply(INIT, "tool");
	const planned = session.leafId;
	todo.apply({ op: "done", task: "a" }, "tool");
	const done = session.leafId;
	session.navigate(planned);
	assert.deepEqual(statuses(todo.plan()), ["t1:in_progress", "t2:pending"]);
	session.navigate(root);
	assert.deepEqual(todo.plan().phases, []);
	session.navigate(root);
	session.navigate(done);
	const restored = session.sent("todo_updated").filter((e) => e.cause === "restored");
	assert.deepEqual(restored.map((e) => statuses({ phases: e.phases as TodoPhaseView[] })), [["t1:in_progress", "t2:pending"], [], ["t1:completed", "t2:in_progress"]]);
	session.navigate(planned);
	todo.apply({ op: "append", items: ["c"] }, "command");
	assert.deepEqual(statuses(todo.plan()), ["t1:in_progress", "t2:pending", "t3:pending"], "ids continue from the branch's plan");
	assert.equal(session.customEntries(TODO_ENTRY_TYPE).length, 2, "the branch holds its own snapshots");
	// The same session opened again reads the plan of its leaf.
	assert.deepEqual(open(session).todo.plan(), todo.plan());
});

test("restore takes the newest snapshot that is a sound plan, passing over damaged and newer ones", () => {
	const good: TodoPlan = { phases: [{ name: "P", tasks: [{ id: "t1", content: "a", status: "in_progress", dependsOn: [] }] }], nextId: 2 };
	const cyclic: TodoPlan = {
		phases: [{ name: "P", tasks: [{ id: "t1", content: "a", status: "pending", dependsOn: ["t2"] }, { id: "t2", content: "b", status: "pending", dependsOn: ["t1"] }] }],
		nextId: 3,
	};
	const entries = [
		{ data: { version: 1, plan: good } },
		{ data: { version: 1, plan: cyclic } },
		{ data: { version: 2, plan: good } },
		{ data: { version: 1, plan: { phases: "no" } } },
		{ data: null },
	];
	assert.deepEqual(restorePlan(entries), good);
	assert.deepEqual(restorePlan([]).phases, []);
	// A snapshot that breaks only the ready pointer is repaired, not dropped.
	const idle: TodoPlan = { phases: [{ name: "P", tasks: [{ id: "t1", content: "a", status: "pending", dependsOn: [] }] }], nextId: 2 };
	assert.deepEqual(statuses(restorePlan([{ data: { version: 1, plan: idle } }])), ["t1:in_progress"]);
});

test("the todo tool answers with what happened and the compact plan; a refusal is the tool's error", async () => {
	const { todo } = open();
	const tool = todo.tools[0]!;
	assert.equal(tool.name, "todo");
	assert.match(await tool.execute(INIT, undefined), /^The plan was replaced\.\nPlan: 0\/2 done · 1 active · 1 blocked\n## P\n\[>\] t1 a/);
	assert.match(await tool.execute({ op: "done", task: "t1" }, undefined), /^Completed t1\.\nNewly completed: t1 a\n/);
	assert.doesNotMatch(await tool.execute({ op: "view" }, undefined), /Newly completed/);
	await assert.rejects(tool.execute({ op: "append", items: ["a"] }, undefined), /Task content "a" appears twice/);
});

test("a change the disk refuses is refused whole: the plan stays as it was and nobody hears of it", () => {
	const { todo, session } = open();
	todo.apply(INIT, "command");
	session.diskFull = true;
	refusedUnchanged(todo, session, "io_error", () => todo.apply({ op: "done", task: "t1" }, "command"));
	refusedUnchanged(todo, session, "io_error", () => todo.set([{ name: "X", tasks: [{ content: "x" }] }]));
	session.diskFull = false;
	assert.deepEqual(statuses(todo.apply({ op: "done", task: "t1" }, "command").plan), ["t1:completed", "t2:in_progress"]);
});
