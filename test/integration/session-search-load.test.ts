/**
 * A search over 5,000 session files does not hold the service: another client's pings are answered meanwhile
 * (a loose bound: the machine is shared; bench/session-search.ts measures it). The search reads every file
 * (the text is in a few of them), finds each hit, and answers within its time bound.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { writeManySessions } from "../support/many-sessions.js";
import { tempDir } from "../support/skiff-process.js";
import { useSkiffStarter } from "../support/skiff-starter.js";
import { TestClient } from "../support/ws-client.js";

/** Far above a ping's time on an idle machine (about 1 ms), far below a search that held the loop to its end. */
const LOOSE_PING_LIMIT_MS = 1_000;

const service = useSkiffStarter();

test("pings from another client are answered while a search reads 5,000 session files", async () => {
	const agentDir = service.newAgentDir();
	writeManySessions(agentDir, { files: 5_000, folders: 100, messages: 8, needle: "NEEDLE-IN-THE-HAY", hitEvery: 1_000 });
	const { skiff, client: searcher } = await service.start({ agentDir, cwd: tempDir() });
	const pinger = await TestClient.connect(skiff.wsUrl);
	await pinger.ok({ type: "ping" });

	for (const round of ["first (summaries read)", "second (summaries kept)"]) {
		let searching = true;
		const search = searcher.ok({ type: "session_search", query: "needle-in-the-hay", scope: "all", limit: 200 }, 60_000).finally(() => (searching = false));
		const pings: number[] = [];
		while (searching) {
			const sent = performance.now();
			await pinger.ok({ type: "ping" });
			pings.push(performance.now() - sent);
		}
		const result = await search;
		assert.equal(result.hits.length, 5, `${round}: every hit`);
		assert.ok(result.hits.every((h: any) => h.matchedIn === "message" && /NEEDLE-IN-THE-HAY/.test(h.snippet)));
		assert.equal(result.scanned, 5_000);
		assert.equal(result.truncated, false);
		assert.ok(pings.length >= 3, `${round}: pings were answered during the search (${pings.length})`);
		assert.ok(Math.max(...pings) < LOOSE_PING_LIMIT_MS, `${round}: slowest ping ${Math.max(...pings).toFixed(0)} ms`);
		console.log(`${round}: ${pings.length} pings, slowest ${Math.max(...pings).toFixed(1)} ms`);
	}
	searcher.close();
	pinger.close();
});
