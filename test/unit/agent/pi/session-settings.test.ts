import assert from "node:assert/strict";
import { test } from "node:test";
import type { AgentSession } from "@mariozechner/pi-coding-agent";
import { PiSessionSettings } from "../../../../src/agent/pi/session-settings.js";

/** The part of an AgentSession that applying settings touches: the queue modes it keeps on its agent. */
function fakeSession(settings: PiSessionSettings) {
	const calls: string[] = [];
	const session = {
		setSteeringMode: (mode: "all" | "one-at-a-time") => {
			calls.push(`steering:${mode}`);
			settings.manager.setSteeringMode(mode);
		},
		setFollowUpMode: (mode: "all" | "one-at-a-time") => {
			calls.push(`followUp:${mode}`);
			settings.manager.setFollowUpMode(mode);
		},
	};
	return { session: session as unknown as AgentSession, calls };
}

test("a session's pi settings start from Skiff's and take applied changes, keeping what the session switched itself", async () => {
	const settings = new PiSessionSettings({ steeringMode: "all", compaction: { enabled: false, reserveTokens: 1000 }, defaultThinkingLevel: "high" });
	const { manager } = settings;
	assert.equal(manager.getSteeringMode(), "all");
	assert.equal(manager.getFollowUpMode(), "one-at-a-time", "absent keys keep pi's defaults");
	assert.deepEqual(manager.getCompactionSettings(), { enabled: false, reserveTokens: 1000, keepRecentTokens: 20000 });
	assert.equal(manager.getDefaultThinkingLevel(), "high");

	manager.setRetryEnabled(false); // set_auto_retry on this session
	const { session, calls } = fakeSession(settings);
	await settings.apply(session, { steeringMode: "one-at-a-time", compaction: { keepRecentTokens: 500 }, retry: { maxRetries: 9 } });
	assert.deepEqual(manager.getCompactionSettings(), { enabled: false, reserveTokens: 1000, keepRecentTokens: 500 }, "nested keys merge");
	assert.deepEqual(manager.getRetrySettings(), { enabled: false, maxRetries: 9, baseDelayMs: 2000 }, "the session's own switch stays");
	assert.equal(manager.getSteeringMode(), "one-at-a-time");
	assert.deepEqual(calls, ["steering:one-at-a-time"], "the agent's own copy of the queue mode is set too");
	await settings.apply(session, { compaction: { enabled: true } });
	assert.equal(manager.getCompactionEnabled(), true);
	assert.deepEqual(manager.drainErrors(), []);
});
