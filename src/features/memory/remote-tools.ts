/** The remote backend's tools: recall, retain and reflect against the configured memory server. */
import { Type, type Static, type TObject } from "typebox";
import { boundText, defineFeatureTool, type FeatureTool } from "../../agent/feature-tool.js";
import { RemoteMemoryClient, type RemoteScope } from "./remote-client.js";
import { remoteScope } from "./remote-scope.js";
import type { MemorySettings } from "./settings.js";

/** What sets one remote tool apart: how the model sees it, and the client call it makes. */
interface RemoteToolSpec<S extends TObject> {
	name: string;
	label: string;
	description: string;
	parameters: S;
	call(remote: RemoteMemoryClient, scope: RemoteScope, params: Static<S>, signal: AbortSignal | undefined): Promise<string>;
}

/** The optional `context` argument of retain and reflect. */
const optionalContext = (description: string) => Type.Optional(Type.String({ description }));

/** A blank optional text is no text. */
const optionalText = (value: string | undefined) => (value !== undefined && value.trim() ? value : undefined);

/** The tools, resolving the session's live settings at every call (a backend change shows at once). */
export function createRemoteMemoryTools(settings: () => MemorySettings, cwd: () => string, options: { ca?: string | Buffer } = {}): FeatureTool[] {
	const remoteTool = <S extends TObject>({ call, ...tool }: RemoteToolSpec<S>): FeatureTool<S> =>
		defineFeatureTool({
			...tool,
			async execute(params, signal) {
				const current = settings();
				if (current.backend !== "remote") throw new Error(`the memory backend is now ${current.backend}; this tool is not available`);
				const reply = await call(new RemoteMemoryClient(current, options), remoteScope(current, cwd()), params, signal);
				return boundText(reply);
			},
		});
	return [
		remoteTool({
			name: "recall",
			label: "Recall",
			description: "Search long-term memory (the configured memory bank) for relevant prior context.",
			parameters: Type.Object({ query: Type.String({ description: "Natural-language search query" }) }),
			call: (remote, scope, { query }, signal) => remote.recall(query, scope, signal),
		}),
		remoteTool({
			name: "retain",
			label: "Retain",
			description: "Store an important fact in long-term memory (the configured memory bank).",
			parameters: Type.Object({
				content: Type.String({ description: "Information to remember" }),
				context: optionalContext("Optional source context"),
			}),
			call: (remote, scope, { content, context }, signal) => remote.retain(content, optionalText(context), scope, signal),
		}),
		remoteTool({
			name: "reflect",
			label: "Reflect",
			description: "Answer a question by synthesizing what long-term memory (the configured memory bank) holds.",
			parameters: Type.Object({
				query: Type.String({ description: "Question to answer from long-term memory" }),
				context: optionalContext("Optional additional context"),
			}),
			call: (remote, scope, { query, context }, signal) => remote.reflect(query, optionalText(context), scope, signal),
		}),
	];
}
