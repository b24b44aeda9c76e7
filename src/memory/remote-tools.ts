/** The remote backend's tools: recall, retain and reflect against the configured memory server. */
import { Type } from "typebox";
import { boundText, defineFeatureTool, type FeatureTool } from "../features/feature-tool.js";
import { RemoteMemoryClient } from "./remote-client.js";
import { remoteScope } from "./remote-scope.js";
import type { MemorySettings } from "./settings.js";

/** The tools, resolving the session's live settings at every call (a backend change shows at once). */
export function createRemoteMemoryTools(settings: () => MemorySettings, cwd: () => string, options: { ca?: string | Buffer } = {}): FeatureTool[] {
	const client = () => {
		const current = settings();
		if (current.backend !== "remote") throw new Error(`the memory backend is now ${current.backend}; this tool is not available`);
		return { client: new RemoteMemoryClient(current, options), scope: remoteScope(current, cwd()) };
	};
	const optionalText = (value: string | undefined) => (value !== undefined && value.trim() ? value : undefined);
	return [
		defineFeatureTool({
			name: "recall",
			label: "Recall",
			description: "Search long-term memory (the configured memory bank) for relevant prior context.",
			parameters: Type.Object({ query: Type.String({ description: "Natural-language search query" }) }),
			async execute({ query }, signal) {
				const { client: remote, scope } = client();
				return boundText(await remote.recall(query, scope, signal));
			},
		}),
		defineFeatureTool({
			name: "retain",
			label: "Retain",
			description: "Store an important fact in long-term memory (the configured memory bank).",
			parameters: Type.Object({
				content: Type.String({ description: "Information to remember" }),
				context: Type.Optional(Type.String({ description: "Optional source context" })),
			}),
			async execute({ content, context }, signal) {
				const { client: remote, scope } = client();
				return remote.retain(content, optionalText(context), scope, signal);
			},
		}),
		defineFeatureTool({
			name: "reflect",
			label: "Reflect",
			description: "Answer a question by synthesizing what long-term memory (the configured memory bank) holds.",
			parameters: Type.Object({
				query: Type.String({ description: "Question to answer from long-term memory" }),
				context: Type.Optional(Type.String({ description: "Optional additional context" })),
			}),
			async execute({ query, context }, signal) {
				const { client: remote, scope } = client();
				return boundText(await remote.reflect(query, optionalText(context), scope, signal));
			},
		}),
	];
}
