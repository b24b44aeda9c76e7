/**
 * The todo plan's pure rules: each op by example, then property tests: thousands of random op sequences (a
 * seeded generator, so a failure repeats) never leave a cycle, a duplicate, padded text or a broken ready
 * pointer, a refused op never changes the plan, and newly completed tasks are reported exactly once.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { applyTodoOp, setPlan } from "../../../src/features/todo/ops.js";
import { EMPTY_PLAN, TodoError, viewPlan } from "../../../src/features/todo/plan.js";
import { renderPlan } from "../../../src/features/todo/render.js";
import type { TaskInput, TodoOp, TodoPlan } from "../../../src/features/todo/schemas.js";
import { Prng } from "../../support/prng.js";

/** Applies ops in order, failing on a refusal. */
function run(...ops: TodoOp[]): TodoPlan {
	return ops.reduce((plan, op) => applyTodoOp(plan, op).plan, EMPTY_PLAN);
}

function statuses(plan: TodoPlan): string[] {
	return plan.phases.flatMap((p) => p.tasks.map((t) => `${t.id}:${t.status}`));
}

function refusal(plan: TodoPlan, op: TodoOp): TodoError {
	try {
		applyTodoOp(plan, op);
	} catch (error) {
		assert.ok(error instanceof TodoError, String(error));
		return error;
	}
	assert.fail(`${JSON.stringify(op)} was not refused`);
}

const CHAIN: TodoOp = { op: "init", list: [{ phase: "P", items: ["a", { content: "b", dependsOn: ["a"] }, { content: "c", dependsOn: ["b"] }] }] };

test("init builds the plan with ids, dependencies by content, and starts the first ready task", () => {
	const plan = run(CHAIN);
	assert.deepEqual(statuses(plan), ["t1:in_progress", "t2:pending", "t3:pending"]);
	assert.deepEqual(plan.phases[0]!.tasks.map((t) => t.dependsOn), [[], ["t1"], ["t2"]]);
	const view = viewPlan(plan)[0]!.tasks;
	assert.deepEqual(view.map((t) => t.ready), [true, false, false]);
	assert.deepEqual(view[2]!.blockedBy, [{ id: "t2", content: "b", status: "pending" }]);
	assert.equal(plan.nextId, 4);
});

test("an identical init changes nothing; a new init keeps the ids and statuses of tasks it still holds", () => {
	const plan = run(CHAIN, { op: "done", task: "a" });
	const same = applyTodoOp(plan, { op: "init", list: [{ phase: "P", items: ["a", { content: "b", dependsOn: ["a"] }, { content: "c", dependsOn: ["b"] }] }] });
	assert.equal(same.changed, false);
	assert.equal(same.plan, plan, "the very same plan");
	const grown = applyTodoOp(plan, { op: "init", list: [{ phase: "P", items: ["a", { content: "b", dependsOn: ["a"] }, "d"] }] }).plan;
	assert.deepEqual(statuses(grown), ["t1:completed", "t2:in_progress", "t4:pending"], "c went, d is new, ids never reused");
});

test("the ready pointer: done moves it on, start reopens, work that waits goes back to pending", () => {
	let plan = run(CHAIN);
	const done = applyTodoOp(plan, { op: "done", task: "t1" });
	assert.deepEqual(done.completed, [{ id: "t1", phase: "P", content: "a" }]);
	plan = done.plan;
	assert.deepEqual(statuses(plan), ["t1:completed", "t2:in_progress", "t3:pending"]);
	plan = applyTodoOp(plan, { op: "start", task: "a" }).plan;
	assert.deepEqual(statuses(plan), ["t1:in_progress", "t2:pending", "t3:pending"]);
	plan = applyTodoOp(plan, { op: "drop", task: "a" }).plan;
	assert.deepEqual(statuses(plan), ["t1:abandoned", "t2:in_progress", "t3:pending"], "abandoned no longer blocks");
	const all = applyTodoOp(plan, { op: "done" });
	assert.deepEqual(statuses(all.plan), ["t1:abandoned", "t2:completed", "t3:completed"]);
	assert.deepEqual(all.completed.map((t) => t.id), ["t2", "t3"]);
	assert.equal(applyTodoOp(all.plan, { op: "done" }).changed, false, "nothing open: nothing changes");
});

test("refusals name the cycle, the duplicate, the unknown task, the empty plan or the padding", () => {
	const plan = run(CHAIN);
	assert.match(refusal(plan, { op: "add_dependency", task: "a", dependsOn: ["c"] }).message, /cycle: t1 "a" waits for t3 "c", which waits for t2 "b", which waits for t1 "a"/);
	assert.match(refusal(plan, { op: "add_dependency", task: "a", dependsOn: ["a"] }).message, /t1 "a" cannot wait for itself/);
	assert.match(refusal(plan, { op: "append", items: ["b"] }).message, /Task content "b" appears twice \(t2 and t4\)/);
	assert.match(refusal(plan, { op: "append", phase: "Q", items: ["x", "x"] }).message, /"x" appears twice/);
	assert.equal(refusal(plan, { op: "done", task: "zz" }).code, "not_found");
	assert.equal(refusal(EMPTY_PLAN, { op: "done" }).code, "conflict");
	assert.match(refusal(plan, { op: "append", items: ["x "] }).message, /leading or trailing whitespace/);
	assert.match(refusal(plan, { op: "rm", task: "b" }).message, /Cannot remove t2 "b": t3 "c" waits for it/);
	assert.match(refusal(plan, { op: "init", list: [{ phase: "P", items: [{ content: "x", dependsOn: ["y"] }] }] }).message, /"x" waits for "y", which is not in the list/);
	assert.equal(refusal(plan, { op: "init", list: [] }).code, "invalid_command");
	assert.equal(refusal(plan, { op: "rm" }).code, "invalid_command");
});

test("rm with cascade removes what waits for the task, transitively; a phase goes with its tasks", () => {
	const plan = run(CHAIN, { op: "append", phase: "Q", items: ["x", { content: "y", dependsOn: ["c"] }] });
	assert.deepEqual(statuses(applyTodoOp(plan, { op: "rm", task: "t2", cascade: true }).plan), ["t1:in_progress", "t4:pending"]);
	assert.deepEqual(applyTodoOp(plan, { op: "rm", phase: "Q" }).plan.phases.map((p) => p.name), ["P"]);
	assert.deepEqual(applyTodoOp(plan, { op: "rm", phase: "P", cascade: true }).plan.phases, [{ name: "Q", tasks: [{ id: "t4", content: "x", status: "in_progress", dependsOn: [] }] }]);
});

test("setPlan replaces the plan: ids kept or made, dependencies by id or content, the pointer applied", () => {
	const outcome = setPlan(EMPTY_PLAN, [{ name: "A", tasks: [{ id: "t7", content: "x", status: "in_progress", dependsOn: ["y"] }, { content: "y" }] }]);
	assert.deepEqual(statuses(outcome.plan), ["t7:pending", "t8:in_progress"]);
	assert.equal(outcome.plan.nextId, 9);
	assert.deepEqual(setPlan(outcome.plan, []).plan.phases, []);
});

test("the compact text marks each status and what blocks a task", () => {
	const text = renderPlan(run(CHAIN, { op: "append", phase: "Q", items: ["x"] }, { op: "drop", task: "x" }));
	assert.equal(text, ["Plan: 0/4 done · 1 active · 2 blocked · 1 dropped", "## P", "[>] t1 a", "[ ] t2 b (blocked by t1)", "[ ] t3 c (blocked by t2)", "## Q", "[-] t4 x"].join("\n"));
});

// ----------------------------------------------------------------------------------------------------------
// Property tests

const CONTENTS = ["a", "b", "c", "d", "e", "f", "g", " h", "i ", "a"];
const PHASES = ["P", "Q", "R", "S "];

function randomItems(rng: Prng, known: string[]): TaskInput[] {
	const items: TaskInput[] = [];
	for (let n = 1 + rng.int(3); n > 0; n--) {
		const content = rng.pick(CONTENTS);
		items.push(rng.chance(0.5) ? content : { content, dependsOn: rng.some([...known, ...CONTENTS], 2) });
	}
	return items;
}

/** A random op over a small vocabulary, so duplicates, cycles and unknown names come up often. */
function randomOp(rng: Prng, plan: TodoPlan): TodoOp {
	const ids = plan.phases.flatMap((p) => p.tasks.map((t) => t.id));
	const refs = [...ids, ...CONTENTS, "t99"];
	const task = () => rng.pick(refs);
	switch (rng.int(10)) {
		case 0:
			return { op: "init", list: Array.from({ length: 1 + rng.int(3) }, () => ({ phase: rng.pick(PHASES), items: randomItems(rng, []) })) };
		case 1:
			return { op: "append", ...(rng.chance(0.7) ? { phase: rng.pick(PHASES) } : {}), items: randomItems(rng, ids) };
		case 2:
			return rng.chance(0.8) ? { op: "start", task: task() } : { op: "start", phase: rng.pick(PHASES) };
		case 3:
			return rng.chance(0.7) ? { op: "done", task: task() } : rng.chance(0.5) ? { op: "done", phase: rng.pick(PHASES) } : { op: "done" };
		case 4:
			return rng.chance(0.7) ? { op: "drop", task: task() } : { op: "drop", phase: rng.pick(PHASES) };
		case 5:
			return rng.chance(0.8) ? { op: "rm", task: task(), cascade: rng.chance(0.5) } : { op: "rm", phase: rng.pick(PHASES), cascade: rng.chance(0.5) };
		case 6:
		case 7:
			return { op: "add_dependency", task: task(), dependsOn: [task(), ...(rng.chance(0.3) ? [task()] : [])] };
		case 8:
			return { op: "remove_dependency", task: task(), dependsOn: [task()] };
		default:
			return { op: "view" };
	}
}

/** Every invariant, checked independently of the code under test. */
function assertInvariants(plan: TodoPlan, context: string): void {
	const tasks = plan.phases.flatMap((p) => p.tasks);
	const byId = new Map(tasks.map((t) => [t.id, t]));
	assert.equal(byId.size, tasks.length, `${context}: unique ids`);
	assert.equal(new Set(tasks.map((t) => t.content)).size, tasks.length, `${context}: unique contents`);
	assert.equal(new Set(plan.phases.map((p) => p.name)).size, plan.phases.length, `${context}: unique phase names`);
	for (const text of [...tasks.map((t) => t.content), ...plan.phases.map((p) => p.name)]) assert.equal(text, text.trim(), `${context}: no padding`);
	for (const t of tasks) {
		assert.ok(t.dependsOn.every((id) => byId.has(id) && id !== t.id), `${context}: known dependencies`);
		assert.equal(new Set(t.dependsOn).size, t.dependsOn.length, `${context}: no dependency twice`);
		assert.ok(Number(t.id.slice(1)) < plan.nextId, `${context}: ids below nextId`);
	}
	// Acyclic: Kahn's algorithm consumes every task.
	const waiting = new Map(tasks.map((t) => [t.id, t.dependsOn.length]));
	const free = tasks.filter((t) => t.dependsOn.length === 0).map((t) => t.id);
	let consumed = 0;
	while (free.length > 0) {
		const id = free.pop()!;
		consumed++;
		for (const t of tasks) {
			if (!t.dependsOn.includes(id)) continue;
			const left = waiting.get(t.id)! - 1;
			waiting.set(t.id, left);
			if (left === 0) free.push(t.id);
		}
	}
	assert.equal(consumed, tasks.length, `${context}: acyclic`);
	const settled = (id: string) => ["completed", "abandoned"].includes(byId.get(id)!.status);
	const ready = tasks.filter((t) => (t.status === "pending" || t.status === "in_progress") && t.dependsOn.every(settled));
	for (const t of tasks) if (t.status === "in_progress") assert.ok(ready.includes(t), `${context}: in progress means ready`);
	if (ready.length > 0) assert.ok(tasks.some((t) => t.status === "in_progress"), `${context}: something ready, something in progress`);
}

test("property: random op sequences never break an invariant, and a refused op changes nothing", () => {
	const rng = new Prng(0x5eed);
	let accepted = 0;
	let refused = 0;
	for (let sequence = 0; sequence < 3000; sequence++) {
		let plan = EMPTY_PLAN;
		for (let step = 0; step < 20; step++) {
			const op = randomOp(rng, plan);
			const before = JSON.stringify(plan);
			const context = `sequence ${sequence} step ${step} ${JSON.stringify(op)}`;
			try {
				const outcome = applyTodoOp(plan, op);
				assert.equal(JSON.stringify(plan), before, `${context}: the old plan is untouched`);
				if (!outcome.changed) assert.equal(outcome.plan, plan, `${context}: unchanged means the same plan`);
				assertInvariants(outcome.plan, context);
				const was = new Map(plan.phases.flatMap((p) => p.tasks).map((t) => [t.id, t.status]));
				const nowCompleted = outcome.plan.phases.flatMap((p) => p.tasks).filter((t) => t.status === "completed" && was.get(t.id) !== "completed");
				assert.deepEqual(outcome.completed.map((t) => t.id), nowCompleted.map((t) => t.id), `${context}: newly completed reported`);
				plan = outcome.plan;
				accepted++;
			} catch (error) {
				if (!(error instanceof TodoError)) throw error;
				assert.equal(JSON.stringify(plan), before, `${context}: refused and unchanged`);
				refused++;
			}
		}
		assert.equal(applyTodoOp(plan, { op: "view" }).completed.length, 0, "nothing is reported twice");
	}
	assert.ok(accepted > 5_000 && refused > 5_000, `both paths exercised (${accepted} accepted, ${refused} refused)`);
});

test("property: refused changes name what was wrong", () => {
	const rng = new Prng(42);
	const reasons = new Set<string>();
	for (let sequence = 0; sequence < 500; sequence++) {
		let plan = EMPTY_PLAN;
		for (let step = 0; step < 20; step++) {
			try {
				plan = applyTodoOp(plan, randomOp(rng, plan)).plan;
			} catch (error) {
				const message = (error as Error).message;
				if (/cycle: t\d+ "[^"]+" (waits for|would wait for itself)/.test(message)) reasons.add("cycle");
				else if (/appears twice/.test(message)) reasons.add("duplicate");
				else if (/No task "/.test(message)) reasons.add("unknown");
				else if (/whitespace/.test(message)) reasons.add("padding");
				else if (/The plan is empty/.test(message)) reasons.add("empty");
			}
		}
	}
	assert.deepEqual([...reasons].sort(), ["cycle", "duplicate", "empty", "padding", "unknown"]);
});
