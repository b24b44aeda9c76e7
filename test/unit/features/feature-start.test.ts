/** Starting features in the order of their needs, and which sessions get which feature. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AgentProfile, SessionOrigin } from "../../../src/agent/types.js";
import { defineFeature, type FeatureHost, type FeatureModule, type SessionKind } from "../../../src/features/module.js";
import { sessionFeaturesFor, sessionKindOf } from "../../../src/features/session-policy.js";
import { startFeatures, startOrder } from "../../../src/features/start.js";
import { serviceKey } from "../../../src/protocol/service-key.js";

/** A feature whose service is its own name, serving `serves` with one tool named after it. */
function feature(name: string, options: { needs?: FeatureModule<any>[]; serves?: SessionKind[]; started?: string[] } = {}) {
	const key = serviceKey<string>(name);
	return defineFeature({
		key,
		needs: options.needs?.map((need) => need.key),
		start: (host) => {
			for (const need of options.needs ?? []) assert.equal(host.service(need.key), need.key.name, `${name} finds ${need.key.name} started`);
			options.started?.push(name);
			return name;
		},
		sessions: options.serves && {
			serves: options.serves,
			contribute: (service) => ({
				features: {
					tools: [{ name: service, label: service, description: service, parameters: {} as never, execute: async () => service }],
					activeToolNames: () => [service],
					contextForPrompt: async () => ({ customType: service, content: service }),
				},
			}),
		},
	});
}

/** The shared services are never touched by these features. */
const host = {} as Omit<FeatureHost, "service">;

test("features start after those they need, whatever the list's order; a loop or a missing need is an error naming them", () => {
	const started: string[] = [];
	const base = feature("base", { started });
	const middle = feature("middle", { needs: [base], started });
	const top = feature("top", { needs: [middle, base], started });
	startFeatures([top, middle, base], host);
	assert.deepEqual(started, ["base", "middle", "top"]);

	assert.throws(() => startOrder([top, middle]), /The middle feature needs base, which is not in the list/);
	const a = feature("a");
	const b = defineFeature({ ...feature("b"), needs: [a.key] });
	const looped = defineFeature({ ...a, needs: [b.key] });
	assert.throws(() => startOrder([looped, b]), /Features need each other in a loop: a → b → a/);
});

test("a feature that uses another's service without naming it in `needs` is told so", () => {
	const other = feature("other");
	const sneaky = defineFeature({ key: serviceKey<string>("sneaky"), start: (h) => h.service(other.key) });
	assert.throws(() => startFeatures([other, sneaky], host), /The sneaky feature uses other without naming it in `needs`/);
});

test("a session gets the features serving its kind, in the list's order; attach reaches each", async () => {
	const attached: string[] = [];
	const withAttach = (module: FeatureModule<string>) =>
		defineFeature<string>({
			...module,
			sessions: module.sessions && {
				serves: module.sessions.serves,
				contribute: (service, origin) => ({ ...module.sessions!.contribute(service, origin), attach: (id) => attached.push(`${service}:${id}`) }),
			},
		});
	const list = [
		withAttach(feature("everywhere", { serves: ["top-level", "job", "persona"] })),
		feature("silent"),
		withAttach(feature("top", { serves: ["top-level"] })),
		feature("agents", { serves: ["job", "persona"] }),
	];
	const policy = sessionFeaturesFor(startFeatures(list, host).started);
	const origin = (extra: Partial<SessionOrigin>): SessionOrigin => ({ cwd: () => "/", sessionId: () => "s", ...extra });
	const profile: AgentProfile = { systemPrompt: "", tools: [] };

	const topLevel = policy(origin({}));
	assert.deepEqual(topLevel.features.tools.map((t) => t.name), ["everywhere", "top"]);
	assert.deepEqual(await topLevel.features.contextForPrompt("hi", undefined), [
		{ customType: "everywhere", content: "everywhere" },
		{ customType: "top", content: "top" },
	]);
	topLevel.attach?.("s1");
	assert.deepEqual(attached, ["everywhere:s1", "top:s1"]);

	assert.deepEqual(policy(origin({ profile })).features.activeToolNames(), ["everywhere", "agents"]);
	assert.equal(sessionKindOf(origin({ profile })), "job");
	assert.equal(sessionKindOf(origin({ profile, personaRoot: "/p" })), "persona");
	assert.equal(sessionKindOf(origin({ personaRoot: "/p" })), "top-level", "a session a client opened on a persona's memory is still top-level");
});
