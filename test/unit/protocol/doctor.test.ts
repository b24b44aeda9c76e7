/** The doctor's checks, against a pretend session and pretend service facts: each failure says what to do. */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { RuntimeManager } from "../../../src/agent/runtime-manager.js";
import type { ModelInfo } from "../../../src/agent/types.js";
import { CommandRegistry } from "../../../src/protocol/command.js";
import { type DoctorCheck, doctorCommands, type ServiceFacts } from "../../../src/protocol/commands/doctor.js";
import { createDispatcher } from "../../../src/protocol/dispatch.js";
import { EventStreams } from "../../../src/protocol/event-streams.js";
import { NO_EVENT_STREAM } from "../../../src/protocol/subscriptions.js";
import { FakeAgentHandle, FakeCatalog } from "../../support/fake-agent.js";
import { tempDir } from "../../support/skiff-process.js";

const MODEL: ModelInfo = { provider: "fake", id: "m" };

/** A handle with a model (with credentials or not) and a probe that answers or fails. */
class DoctorHandle extends FakeAgentHandle {
	constructor(
		private readonly model: ModelInfo | undefined,
		private readonly credentials: ModelInfo[],
		private readonly probe: () => Promise<void>,
	) {
		super("s1", "/sessions/s1.jsonl");
	}
	override state() {
		return { ...super.state(), model: this.model };
	}
	override availableModels(): ModelInfo[] {
		return this.credentials;
	}
	override probeModel(): Promise<void> {
		return this.probe();
	}
}

/** The doctor's answer over /rpc, from a runtime whose primary session is `handle`. */
async function run(handle: FakeAgentHandle, service: ServiceFacts | undefined, checkModel = false): Promise<{ ok: boolean; checks: DoctorCheck[] }> {
	const commands = doctorCommands({ service, checks: [async () => ({ id: "memory", ok: true, title: "memory", detail: "fine" })] });
	const runtime = new RuntimeManager({ cwd: handle.cwd, catalog: new FakeCatalog(), openSession: async () => handle });
	await runtime.start({ kind: "new" });
	const dispatcher = createDispatcher(new CommandRegistry().register(...commands), { runtime, streams: new EventStreams(runtime) });
	const response = await dispatcher.dispatchValue({ type: "doctor", checkModel }, NO_EVENT_STREAM);
	assert.equal(response.success, true, response.error);
	return response.data as { ok: boolean; checks: DoctorCheck[] };
}

function facts(overrides: Partial<ServiceFacts> = {}): ServiceFacts {
	const agentDir = tempDir();
	mkdirSync(join(agentDir, "sessions"));
	return { agentDir, sessionsDir: join(agentDir, "sessions"), tools: ["read", "bash", "grep", "find"], reach: { transport: "stdio" }, ...overrides };
}

test("a healthy setup: every check passes; the model is only called when asked", async () => {
	let probes = 0;
	const handle = new DoctorHandle(MODEL, [MODEL], async () => void probes++);
	const quick = await run(handle, facts());
	assert.equal(quick.ok, true);
	assert.deepEqual(quick.checks.map((c) => c.id), ["model", "rg", "fd", "agent_dir", "listener_auth", "memory"]);
	assert.equal(probes, 0);
	const full = await run(handle, facts(), true);
	assert.equal(full.checks[1]!.id, "model_reachable");
	assert.equal(full.checks[1]!.ok, true);
	assert.equal(probes, 1);
	assert.deepEqual((await run(handle, undefined)).checks.map((c) => c.id), ["model", "memory"], "without service facts only what the session knows");
});

test("failures name what is wrong and how to fix it; secrets in a model error are redacted", async () => {
	const failing = new DoctorHandle(MODEL, [{ provider: "other", id: "x" }], async () => {
		throw new Error("401 Incorrect API key provided: sk-proj-abcdefghijklmnopqrstuvwxyz");
	});
	const broken = await run(failing, facts({ tools: ["read", "bash"], agentDir: "/no/such/agent-dir", reach: { transport: "listener", url: "http://0.0.0.0:8787", loopback: false, token: false } }), true);
	assert.equal(broken.ok, false);
	const byId = new Map(broken.checks.map((c) => [c.id, c]));
	assert.match(byId.get("model")!.detail, /fake\/m has no credentials/);
	assert.match(byId.get("model")!.fix!, /set_model \(for example other\/x\)/);
	assert.match(byId.get("model_reachable")!.detail, /did not answer: 401 Incorrect API key provided: \[REDACTED\]/);
	assert.ok(!JSON.stringify(broken).includes("sk-proj"));
	assert.match(byId.get("rg")!.fix!, /Install ripgrep/);
	assert.match(byId.get("fd")!.detail, /no find tool/);
	assert.match(byId.get("agent_dir")!.detail, /Cannot write in \/no\/such\/agent-dir \(ENOENT\)/);
	assert.match(byId.get("listener_auth")!.detail, /without a token: anyone who can reach it/);
	assert.match(byId.get("listener_auth")!.fix!, /--listen-token-file/);
	for (const check of broken.checks.filter((c) => !c.ok)) assert.ok(check.fix, `${check.id} has a fix`);
	const none = await run(new DoctorHandle(undefined, [], async () => undefined), facts());
	assert.match(none.checks[0]!.detail, /no model/);
	assert.match(none.checks[0]!.fix!, /API key/);
});

test("the listener check: loopback is fine, a token over the network is plaintext", async () => {
	const handle = new DoctorHandle(MODEL, [MODEL], async () => undefined);
	const reach = async (loopback: boolean, token: boolean) =>
		(await run(handle, facts({ reach: { transport: "listener", url: "http://h:1", loopback, token } }))).checks.find((c) => c.id === "listener_auth")!;
	assert.equal((await reach(true, true)).ok, true);
	assert.equal((await reach(true, true)).caution, undefined);
	// Open to every local user: passed (it works as asked) with a caution, and one verdict: the title claims nothing.
	const open = await reach(true, false);
	assert.equal(open.ok, true);
	assert.equal(open.caution, true);
	assert.match(open.detail, /^Any program of any user on this machine/);
	assert.match(open.fix!, /--listen-token-file/);
	assert.doesNotMatch(open.title, /protected/);
	const plaintext = await reach(false, true);
	assert.equal(plaintext.ok, false);
	assert.match(plaintext.fix!, /SSH tunnel or a TLS-terminating proxy/);
});
