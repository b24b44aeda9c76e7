/**
 * Which sessions get MCP tools (docs/mcp.md, "Who gets them"): top-level sessions and jobs' children (as their
 * definition allows), never a persona's run. The rule is the mcp module's `serves`, read by the session policy;
 * this drives the real module through the policy with a service that offers one tool. (Side chats take no
 * session features at all: test/integration/mcp.test.ts checks what their model is offered.)
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AgentProfile, SessionFeatures, SessionOrigin } from "../../../../src/agent/types.js";
import { mcpFeature } from "../../../../src/features/mcp/index.js";
import { sessionFeaturesFor } from "../../../../src/features/session-policy.js";

test("top-level sessions and jobs' children get MCP tools; a persona's run gets none", () => {
	const asked: string[] = [];
	const service = {
		forSession(origin: SessionOrigin): SessionFeatures {
			asked.push(origin.personaRoot ? "persona" : origin.profile ? "job" : "top-level");
			const current = () => [{ name: "mcp__db__query" }] as never;
			return { tools: [], dynamicTools: { current }, activeToolNames: () => ["mcp__db__query"], contextForPrompt: async () => undefined };
		},
	};
	const policy = sessionFeaturesFor([{ module: mcpFeature, service }]);
	const origin = (extra: Partial<SessionOrigin>): SessionOrigin => ({ cwd: () => "/", sessionId: () => "s", ...extra });
	const profile: AgentProfile = { systemPrompt: "", tools: [] };
	assert.deepEqual(policy(origin({})).features.activeToolNames(), ["mcp__db__query"]);
	assert.deepEqual(policy(origin({ profile })).features.activeToolNames(), ["mcp__db__query"]);
	const persona = policy(origin({ profile, personaRoot: "/personas/ada" })).features;
	assert.deepEqual(persona.activeToolNames(), []);
	assert.deepEqual(persona.dynamicTools?.current() ?? [], []);
	assert.deepEqual(asked, ["top-level", "job"], "the service is never asked for a persona's run");
});
