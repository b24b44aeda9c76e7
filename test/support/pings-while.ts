/** How another client's pings fare while work runs in the service: each ping's round trip, sent one after another until the work ends. */
import type { TestClient } from "./ws-client.js";

export async function pingsWhile(pinger: TestClient, work: Promise<unknown>): Promise<number[]> {
	let pending = true;
	const done = work.finally(() => (pending = false));
	const delays: number[] = [];
	while (pending) {
		const start = performance.now();
		await pinger.ok({ type: "ping" });
		delays.push(performance.now() - start);
	}
	await done;
	return delays;
}
