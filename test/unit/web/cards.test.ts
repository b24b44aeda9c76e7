/** Pure parts of the page's cards: a setting's label in words, and a job card's details read defensively. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { cardDetails } from "../../../web/src/ui/job-card-details.js";
import { settingLabel } from "../../../web/src/ui/panels/setting-label.js";

test("a key is named in words: its last part, acronyms in capitals, milliseconds as a unit", () => {
	assert.equal(settingLabel("defaultProvider"), "Default provider");
	assert.equal(settingLabel("memory.remoteApiUrl"), "Remote API URL");
	assert.equal(settingLabel("memory.remoteBankIdPrefix"), "Remote bank ID prefix");
	assert.equal(settingLabel("memory.remoteRequestTimeoutMs"), "Remote request timeout (ms)");
	assert.equal(settingLabel("compaction.enabled"), "Enabled");
	assert.equal(settingLabel("mcpServers"), "MCP servers");
	assert.equal(settingLabel("x"), "X");
	assert.equal(settingLabel(""), "");
});

test("a job card's details keep only what has the right type", () => {
	assert.deepEqual(cardDetails({ jobId: "job-1", summary: 42, yielded: "no", woke: ["x"], status: "completed", extra: 1 }), { jobId: "job-1", status: "completed" });
	assert.deepEqual(cardDetails(undefined), {});
	assert.deepEqual(cardDetails("text"), {});
	assert.deepEqual(cardDetails({ yielded: false, woke: "why" }), { yielded: false, woke: "why" });
});
