/**
 * A client that pings back to back in a process of its own, so that its latencies are the service's and not
 * the stress runner's (which may be busy parsing what a hundred other clients receive). Argument: the /ws
 * URL. Prints `ready` once connected; on a `stop` line on stdin prints one JSON line
 * `{"sentAt": [...], "ms": [...]}` (sentAt in epoch ms) and exits.
 */
import { createInterface } from "node:readline";
import { StressClient } from "./client.js";

const client = await StressClient.connect(process.argv[2]!);
const sentAt: number[] = [];
const ms: number[] = [];
let failures = 0;
let running = true;
process.stdout.write("ready\n");
createInterface({ input: process.stdin }).on("line", (line) => {
	if (line.trim() === "stop") running = false;
});
while (running) {
	const start = performance.now();
	const response = await client.request({ type: "ping" });
	if (!response.success) failures++;
	sentAt.push(performance.timeOrigin + start);
	ms.push(performance.now() - start);
	await new Promise((resolve) => setImmediate(resolve)); // lets the stop line in
}
client.close();
const round = (values: number[]) => values.map((v) => Math.round(v * 1000) / 1000);
// Exit only once the (long) line is flushed to the pipe.
process.stdout.write(`${JSON.stringify({ sentAt: round(sentAt), ms: round(ms), failures })}\n`, () => process.exit(0));
