/** A port for a test that stops the service and starts it again on the same address. */
import { createServer } from "node:net";

// Below Linux's ephemeral range (32768–60999 by default). While the service is down, a reconnecting client's
// connect() to a port inside that range can be given that same port as its source port and connect to itself
// (TCP simultaneous open), holding the port so the restarted service fails with EADDRINUSE.
const FIRST = 20_000;
const LAST = 32_000;

/** A port outside the ephemeral range that was free a moment ago. */
export async function portForRestart(): Promise<number> {
	for (let attempt = 0; attempt < 50; attempt++) {
		const port = FIRST + Math.floor(Math.random() * (LAST - FIRST));
		if (await isFree(port)) return port;
	}
	throw new Error(`no free port between ${FIRST} and ${LAST}`);
}

function isFree(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const server = createServer();
		server.once("error", () => resolve(false));
		server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
	});
}
