/**
 * A tiny feature that exists only to prove the seam: adding a feature is this one folder and one line in the
 * feature list. It has one setting (`example.prefix`), one event (`example_noted`), one command
 * (`example_note`) and one tool (`example_notes`), and keeps its notes per session in memory.
 */
import { Type } from "typebox";
import { defineFeatureTool } from "../../../src/agent/feature-tool.js";
import { defineFeature } from "../../../src/features/module.js";
import { defineCommand } from "../../../src/protocol/command.js";
import { defineEvent } from "../../../src/protocol/event.js";
import { serviceKey } from "../../../src/protocol/service-key.js";
import { valuesOf } from "../../../src/settings/effective-settings.js";
import { defineSetting } from "../../../src/settings/definition.js";
import type { RuntimeEvent } from "../../../src/agent/types.js";

const PREFIX = "example.prefix";

export const exampleNotedEvent = defineEvent("example_noted", "A note was added to the session's example notes.", {
	note: Type.String(),
	count: Type.Integer(),
});

/** The feature's service: notes by session, and the prefix the tool reads them out with. */
export class ExampleNotes {
	private readonly notes = new Map<string, string[]>();

	constructor(
		private readonly prefix: () => string,
		private readonly publish: (sessionId: string, event: RuntimeEvent) => void,
	) {}

	add(sessionId: string, note: string): number {
		const notes = [...(this.notes.get(sessionId) ?? []), note];
		this.notes.set(sessionId, notes);
		this.publish(sessionId, { type: exampleNotedEvent.type, note, count: notes.length });
		return notes.length;
	}

	readOut(sessionId: string): string {
		return (this.notes.get(sessionId) ?? []).map((note) => `${this.prefix()}: ${note}`).join("\n") || "no notes";
	}
}

const key = serviceKey<ExampleNotes>("example");

export const exampleFeature = defineFeature({
	key,
	settings: [
		defineSetting({
			key: PREFIX,
			category: "example",
			schema: Type.String({ minLength: 1, maxLength: 20, default: "note", description: "What each note is read out with." }),
			scopes: ["global"],
			applies: "live",
		}),
	],
	events: [exampleNotedEvent],
	commands: [
		defineCommand({
			name: "example_note",
			summary: "Adds a note to the addressed session's example notes.",
			params: Type.Object({ note: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
			result: Type.Object({ count: Type.Integer() }),
			handler: async ({ note }, context) => ({ count: context.service(key).add((await context.session()).id, note) }),
		}),
	],
	start: (host) =>
		new ExampleNotes(
			() => String(valuesOf(host.settings.effective()).get(PREFIX)),
			(sessionId, event) => host.publish(sessionId, event),
		),
	sessions: {
		serves: ["top-level"],
		contribute: (notes, origin) => {
			const tool = defineFeatureTool({
				name: "example_notes",
				label: "Example notes",
				description: "Reads out this session's example notes.",
				parameters: Type.Object({}),
				execute: async () => notes.readOut(origin.sessionId()),
			});
			return { features: { tools: [tool], activeToolNames: () => [tool.name], contextForPrompt: async () => undefined } };
		},
	},
});
