/**
 * The inline pi extensions every Skiff session gets: the recording check before each model call, and the
 * hooks through which features add tools and hidden turn-start context and see tool calls before they run.
 */
import { defineTool, type ExtensionFactory, type ToolDefinition } from "@mariozechner/pi-coding-agent";
import type { DynamicTools, RichFeatureTool } from "../feature-tool.js";
import { BEFORE_TOOL_CALL_MS, type HiddenContext, type SessionFeatures, type ToolCallStart } from "../types.js";
import type { SessionRecorder } from "./recorder.js";
import type { TurnStartAbort } from "./turn-start.js";

/**
 * Holds each model request until the newest user message of the conversation is on disk, and stops the run
 * when it could not be recorded (the model is never called with an unrecorded prompt). It hooks the provider
 * request (which pi does not copy), not the `context` event (which makes pi clone the whole conversation on
 * every model call).
 */
export function recordBeforeModelCall(recorder: SessionRecorder, messages: () => readonly unknown[]): ExtensionFactory {
	return (pi) => {
		pi.on("before_provider_request", async (_event, ctx) => {
			const all = messages();
			for (let i = all.length - 1; i >= 0; i--) {
				const message = all[i] as { role?: unknown; timestamp?: unknown };
				if (message.role !== "user") continue;
				try {
					await recorder.waitUntilRecorded(message);
				} catch {
					ctx.abort(); // pi swallows hook errors: aborting is how the model call is stopped
				}
				break;
			}
			return undefined;
		});
	};
}

/** At most this many hidden messages of features are added before one prompt (memory, todo plan, goal, ...). */
export const MAX_TURN_CONTEXTS = 4;

/**
 * Before each prompt, activates the tools the features offer now (a backend switch applies to new turns)
 * and adds their hidden context, never auto-submitted, never blocking the turn.
 */
export function featureHooks(coreTools: readonly string[], features: SessionFeatures, turnStart: TurnStartAbort): ExtensionFactory {
	const registerDynamic = features.dynamicTools ? dynamicToolRegistrar(features.dynamicTools) : undefined;
	return (pi) => {
		let contexts: HiddenContext[] = [];
		pi.on("before_agent_start", async (event, ctx) => {
			// Tools that appeared since the last prompt (an MCP server started, or its list changed).
			registerDynamic?.((tool) => pi.registerTool(tool));
			// Changing the set rebuilds the system prompt, so it is done only when the set changed (a hidden turn
			// started by a feature may have changed it too: see syncFeatureTools).
			const names = featureToolNames(coreTools, features);
			if (names.join("\n") !== pi.getActiveTools().join("\n")) pi.setActiveTools(names);
			const signal = ctx.signal ? AbortSignal.any([ctx.signal, turnStart.signal]) : turnStart.signal;
			const found = await features.contextForPrompt(event.prompt, signal);
			contexts = (found === undefined ? [] : Array.isArray(found) ? found : [found]).slice(0, MAX_TURN_CONTEXTS);
			return hiddenMessage(contexts[0]);
		});
		// pi takes one message from each handler: the others are handed out by handlers of their own, in order.
		for (let i = 1; i < MAX_TURN_CONTEXTS; i++) pi.on("before_agent_start", async () => hiddenMessage(contexts[i]));
		if (features.beforeToolCall) {
			const before = features.beforeToolCall.bind(features);
			pi.on("tool_call", async (event) => {
				await beforeToolCall(before, { toolName: event.toolName, toolCallId: event.toolCallId, input: event.input });
				return undefined; // never blocks the call
			});
		}
		if (features.toolResultDetails) {
			const after = features.toolResultDetails.bind(features);
			pi.on("tool_result", async (event) => {
				const added = await withinTime(after({ toolName: event.toolName, toolCallId: event.toolCallId, input: event.input, isError: event.isError }));
				const details = event.details ?? {};
				// Only an object's details can take more keys (pi's own tools give objects or nothing).
				if (!added || typeof details !== "object" || Array.isArray(details)) return undefined;
				return { details: { ...details, ...added } };
			});
		}
	};
}

/** The features' look at a tool call: its failure and its slowness past BEFORE_TOOL_CALL_MS never hold the call up. */
async function beforeToolCall(before: NonNullable<SessionFeatures["beforeToolCall"]>, call: ToolCallStart): Promise<void> {
	await withinTime(before(call));
}

/** What a feature's look answers, or undefined when it failed or took longer than BEFORE_TOOL_CALL_MS. */
async function withinTime<T>(look: Promise<T>): Promise<T | undefined> {
	let timer: NodeJS.Timeout | undefined;
	const late = new Promise<undefined>((resolve) => {
		timer = setTimeout(() => resolve(undefined), BEFORE_TOOL_CALL_MS);
	});
	try {
		return await Promise.race([look.catch(() => undefined), late]);
	} finally {
		clearTimeout(timer);
	}
}

/** The tools a session offers now: the core ones and the features' active ones. */
export function featureToolNames(coreTools: readonly string[], features: SessionFeatures): string[] {
	return [...coreTools, ...features.activeToolNames()];
}

function hiddenMessage(context: HiddenContext | undefined) {
	return context ? { message: { customType: context.customType, content: context.content, display: false } } : undefined;
}

/** A feature tool as pi runs it: text (or text and images) out, errors as tool errors. */
export function toPiTool(tool: RichFeatureTool): ToolDefinition {
	return defineTool({
		name: tool.name,
		label: tool.label,
		description: tool.description,
		parameters: tool.parameters,
		async execute(_toolCallId, params, signal) {
			const output = await tool.execute(params as never, signal);
			if (typeof output === "string") return { content: [{ type: "text", text: output }], details: {} };
			return { content: output.content, details: output.details ?? {} };
		},
	}) as unknown as ToolDefinition;
}

/**
 * Registers the features' dynamic tools that are new or changed since the last call (pi has no way to drop a
 * tool: one that went away stays registered but is no longer active, as `activeToolNames` leaves it out).
 */
export function dynamicToolRegistrar(dynamic: DynamicTools): (register: (tool: ToolDefinition) => void) => void {
	const registered = new Map<string, RichFeatureTool>();
	return (register) => {
		for (const tool of dynamic.current()) {
			if (registered.get(tool.name) === tool) continue;
			registered.set(tool.name, tool);
			register(toPiTool(tool));
		}
	};
}
