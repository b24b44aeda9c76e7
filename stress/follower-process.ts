/**
 * A process of its own holding some of the fan-out's followers, so that reading and checking two million
 * frames is spread over processes and the measuring side is not what limits the figure. Usage:
 * `follower-process.ts <wsUrl> <clients>`. Prints `ready` once every client follows the primary session, then,
 * once every client has the reply's end (or on `stop` on its standard input), one JSON line of results.
 */
import { createInterface } from "node:readline";
import { StressClient } from "./client.js";
import { DeltaLog } from "./delta-log.js";

export interface FollowerResult {
	chars: number;
	/** Delta events received (fewer than deltas: the service merges one turn's deltas, and a client behind gets them merged). */
	count: number;
	outOfOrder: number;
	/** Events whose seq skipped numbers (the client fell behind). */
	skipped: number;
	/** When the client had the reply's end, epoch ms; undefined when it never did. */
	endedAt: number | undefined;
}

const [wsUrl, countText] = process.argv.slice(2);
const count = Number(countText);
const clients: StressClient[] = [];
const logs: DeltaLog[] = [];
const endedAt: Array<number | undefined> = [];
let reported = false;

function report(): void {
	if (reported) return;
	reported = true;
	const results: FollowerResult[] = logs.map((log, i) => ({ chars: log.chars, count: log.count, outOfOrder: log.outOfOrder, skipped: log.skipped, endedAt: endedAt[i] }));
	process.stdout.write(`${JSON.stringify(results)}\n`, () => {
		for (const client of clients) client.terminate();
		process.exit(0);
	});
}

for (let i = 0; i < count; i++) {
	const client = await StressClient.connect(wsUrl!);
	const log = new DeltaLog(1024);
	client.onEvent = (event, at) => {
		log.add(event, at);
		if (event.type === "agent_end" && endedAt[i] === undefined) {
			endedAt[i] = performance.timeOrigin + at;
			if (endedAt.filter((t) => t !== undefined).length === count) report();
		}
	};
	await client.ok({ type: "subscribe" });
	clients.push(client);
	logs.push(log);
}
createInterface({ input: process.stdin }).on("line", (line) => line === "stop" && report());
process.stdout.write("ready\n");
