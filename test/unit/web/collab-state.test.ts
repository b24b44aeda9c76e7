/** The Share dialog's state: rooms from collab_status, kept current by collab_updated, start and stop. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { SkiffClient, SkiffEvent } from "../../../src/client/index.js";
import { CollabState, type SharedRoom } from "../../../web/src/state/collab-state.js";
import type { PanelContext } from "../../../web/src/state/panel-context.js";

function room(roomId: string, sessionId: string, guests: Partial<SharedRoom> = {}): SharedRoom {
	return {
		roomId,
		sessionId,
		controlGuests: 0,
		viewGuests: 0,
		participantLimit: 8,
		startedAt: "2025-01-01T00:00:00.000Z",
		controlLink: `http://127.0.0.1:1/collab/ws/${roomId}#c=k`,
		viewLink: `http://127.0.0.1:1/collab/ws/${roomId}#v=k`,
		...guests,
	};
}

/** A client answering collab_* from a list of rooms, recording its calls; `emit` delivers an event. */
function fakeClient(rooms: SharedRoom[], failStart?: string) {
	const calls: Array<{ type: string; params: unknown; sessionId?: string }> = [];
	let listener: ((event: SkiffEvent) => void) | undefined;
	const client = {
		onEvent: (l: (event: SkiffEvent) => void) => (listener = l),
		call: async (type: string, params: Record<string, string>, options: { sessionId?: string } = {}) => {
			calls.push({ type, params, sessionId: options.sessionId });
			if (type === "collab_status") return { rooms: [...rooms], roomLimit: 8 };
			if (type === "collab_start") {
				if (failStart) throw new Error(failStart);
				rooms.push(room(`r${rooms.length + 1}`, options.sessionId!));
				return rooms.at(-1);
			}
			if (type === "collab_stop") {
				rooms.splice(rooms.findIndex((r) => r.roomId === params.roomId), 1);
				return { roomId: params.roomId, sessionId: "s", closedGuests: 0 };
			}
			throw new Error(`unexpected ${type}`);
		},
	};
	const emit = (event: Record<string, unknown>) => listener!({ sessionId: "s1", seq: 1, ...event } as unknown as SkiffEvent);
	return { client: client as unknown as SkiffClient, calls, emit };
}

/** The panel context the controller would give, with "s1" as the current session. */
function contextFor(client: SkiffClient, changed: () => void = () => undefined): PanelContext {
	return { client, sessionId: () => "s1", changed, toast: () => undefined, announce: () => undefined };
}

test("the current session's rooms and guests; collab_updated changes the counts and removes a stopped room", async () => {
	const { client, emit } = fakeClient([room("a", "s1", { controlGuests: 1 }), room("b", "s2", { viewGuests: 3 })]);
	let changes = 0;
	const state = new CollabState(contextFor(client, () => changes++));
	await state.refresh();
	assert.deepEqual(state.current().map((r) => r.roomId), ["a"]);
	assert.deepEqual(state.guests(), { control: 1, view: 0 });

	emit({ type: "collab_updated", roomId: "a", stopped: false, controlGuests: 2, viewGuests: 1 });
	assert.deepEqual(state.guests(), { control: 2, view: 1 });
	emit({ type: "message_end", message: { role: "user", content: "x" } });
	assert.deepEqual(state.guests(), { control: 2, view: 1 }, "other events change nothing");
	emit({ type: "collab_updated", roomId: "a", stopped: true, controlGuests: 0, viewGuests: 0 });
	assert.deepEqual(state.current(), []);
	assert.ok(changes >= 3);
});

test("a room started elsewhere is read with its links when its first collab_updated arrives", async () => {
	const rooms = [room("a", "s1")];
	const { client, calls, emit } = fakeClient(rooms);
	const state = new CollabState(contextFor(client));
	await state.refresh();
	rooms.push(room("z", "s1", { viewGuests: 1 }));
	emit({ type: "collab_updated", roomId: "z", stopped: false, controlGuests: 0, viewGuests: 1 });
	await new Promise<void>((resolve) => setImmediate(resolve));
	assert.equal(calls.filter((c) => c.type === "collab_status").length, 2);
	assert.deepEqual(state.current().map((r) => r.roomId), ["a", "z"]);
	assert.equal(state.current()[1]!.viewLink, "http://127.0.0.1:1/collab/ws/z#v=k");
});

test("start addresses the current session; stop removes the room; a failure is kept to show, not thrown", async () => {
	const { client, calls } = fakeClient([]);
	const state = new CollabState(contextFor(client));
	assert.equal(await state.start(), true);
	assert.deepEqual(calls[0], { type: "collab_start", params: {}, sessionId: "s1" });
	assert.deepEqual(state.current().map((r) => r.roomId), ["r1"]);
	assert.equal(state.busy, false);
	assert.equal(await state.stop("r1"), true);
	assert.deepEqual(state.current(), []);

	const failing = new CollabState(contextFor(fakeClient([], "The listener is bound to every interface: set --listen-advertised-origin").client));
	assert.equal(await failing.start(), false);
	assert.match(failing.error ?? "", /--listen-advertised-origin/);
	failing.dismissError();
	assert.equal(failing.error, undefined);
});

test("starting and stopping render their busy state with the click, not a frame later; the answer re-renders as usual", async () => {
	const { client } = fakeClient([]);
	const renders: Array<boolean | undefined> = [];
	const state = new CollabState(contextFor(client, (now?: boolean) => renders.push(now)));
	const started = state.start();
	assert.equal(state.busy, true);
	assert.deepEqual(renders, [true], "the busy state asked to render at once");
	await started;
	assert.equal(state.busy, false);
	assert.equal(renders.at(-1), undefined, "the outcome waits for the next frame like any change");
});
