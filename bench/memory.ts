/**
 * Memory latency: learn and recall on a local store holding 100 entries, and a remote recall, retain and
 * reflect against the fake Hindsight server over loopback, against the cost of the same HTTP round trips to a
 * bare loopback server (the baseline). Retain and reflect include the bank PUT sent before each of them (two
 * round trips). Prints medians with p25–p75. Usage: npm run bench:memory [-- --rounds 200 --write]
 */
import { createServer } from "node:http";
import { join } from "node:path";
import { LocalMemoryStore } from "../src/features/memory/local-store.js";
import { RemoteMemoryClient } from "../src/features/memory/remote-client.js";
import { DEFAULT_MEMORY_SETTINGS } from "../src/features/memory/settings.js";
import { startFakeHindsight } from "../test/support/fake-hindsight.js";
import { tempDir } from "../test/support/skiff-process.js";
import { writeBenchSection } from "./doc-section.js";
import { readBenchOptions } from "./options.js";
import { median, medianWithSpread } from "../stress/stats.js";

const options = readBenchOptions();
const ROUNDS = options.rounds;

async function time(action: () => Promise<unknown>): Promise<number[]> {
	const samples: number[] = [];
	for (let i = 0; i < ROUNDS; i++) {
		const start = performance.now();
		await action();
		samples.push(performance.now() - start);
	}
	return samples;
}

const store = new LocalMemoryStore(join(tempDir("skiff-bench-memory-"), "entries.jsonl"));
for (let i = 0; i < 100; i++) await store.learn(`note ${i}: the service ${i % 7} deploys on day ${i % 5}`, [`tag${i % 4}`], "bench");
const learn = await time(() => store.learn("a fresh note about deploys", ["bench"], "bench"));
const recall = await time(() => store.recall("service deploys day 3"));

const hindsight = await startFakeHindsight();
const settings = { ...DEFAULT_MEMORY_SETTINGS, backend: "remote" as const, remoteApiUrl: hindsight.url, remoteAllowInsecure: true };
const client = new RemoteMemoryClient(settings);
for (let i = 0; i < 100; i++) await client.retain(`fact ${i} about deploys and services`, undefined, { bank: "bench" });
const remote = await time(() => client.recall("deploys services", { bank: "bench" }));
const retain = await time(() => client.retain("one more fact about deploys", undefined, { bank: "bench" }));
const reflect = await time(() => client.reflect("when do services deploy?", undefined, { bank: "bench" }));
await hindsight.close();

const bare = createServer((_req, res) => res.end('{"results":[]}'));
await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
const bareUrl = `http://127.0.0.1:${(bare.address() as { port: number }).port}/`;
const post = () => fetch(bareUrl, { method: "POST", body: "{}" }).then((r) => r.text());
const roundTrip = await time(post);
const twoRoundTrips = await time(async () => {
	await post();
	await post();
});
bare.close();

const spread = (samples: number[], digits: number) => medianWithSpread(samples, digits, "p25–p75");
const table = [
	`Measured ${new Date().toISOString().slice(0, 10)}, ${ROUNDS} rounds each; median (p25–p75) over the rounds.`,
	"",
	"| metric | value (ms) | baseline (ms) | ratio (medians) |",
	"|---|---|---|---|",
	`| local learn at 100 entries (lock, read, write, fsync, rename) | ${spread(learn, 2)} | – | – |`,
	`| local recall at 100 entries | ${spread(recall, 3)} | – | – |`,
	`| remote recall against the fake over loopback | ${spread(remote, 2)} | ${spread(roundTrip, 2)}, bare loopback POST | ${(median(remote) / median(roundTrip)).toFixed(2)} |`,
	`| remote retain, bank PUT included | ${spread(retain, 2)} | ${spread(twoRoundTrips, 2)}, two bare loopback POSTs | ${(median(retain) / median(twoRoundTrips)).toFixed(2)} |`,
	`| remote reflect, bank PUT included | ${spread(reflect, 2)} | ${spread(twoRoundTrips, 2)}, two bare loopback POSTs | ${(median(reflect) / median(twoRoundTrips)).toFixed(2)} |`,
].join("\n");
console.log(table);
if (options.write) writeBenchSection("memory", table);
