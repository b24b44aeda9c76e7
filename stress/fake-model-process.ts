/**
 * Runs the fake model server in its own process for benchmarks, so that writing a 20,000-chunk burst never
 * blocks the measuring client's event loop. Prints `{"url": ...}` once, then one JSON line of timings per
 * request.
 */
import { startFakeOpenAi } from "../test/support/fake-openai.js";

const server = await startFakeOpenAi();
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
let reported = 0;
setInterval(() => {
	for (; reported < server.requests.length; reported++) {
		const { receivedAt, firstChunkAt, lastByteAt } = server.requests[reported]!;
		if (lastByteAt === undefined) break;
		process.stdout.write(`${JSON.stringify({ receivedAt, firstChunkAt, lastByteAt })}\n`);
	}
}, 20).unref();
process.on("SIGTERM", () => server.close().then(() => process.exit(0)));
process.stdin.on("end", () => server.close().then(() => process.exit(0)));
process.stdin.resume();
