/**
 * The service's JavaScript heap after a full garbage collection, read over the V8 inspector (skiff runs with
 * `--inspect=127.0.0.1:0` in the stress runs only). Resident memory alone cannot tell a leak from garbage
 * V8 has not collected yet, or from pages it keeps after collecting.
 */
import WebSocket from "ws";

/** The inspector's WebSocket URL from the process's stderr ("Debugger listening on ws://…"). */
export function inspectorUrl(stderr: string): string | undefined {
	return /Debugger listening on (ws:\/\/\S+)/.exec(stderr)?.[1];
}

/** Collects garbage in the inspected process, then returns its used heap in MiB. */
export async function heapAfterGcMiB(url: string): Promise<number> {
	const socket = new WebSocket(url);
	await new Promise((resolve, reject) => {
		socket.once("open", resolve);
		socket.once("error", reject);
	});
	let nextId = 1;
	const call = (method: string) =>
		new Promise<any>((resolve) => {
			const id = nextId++;
			const onMessage = (data: WebSocket.RawData) => {
				const message = JSON.parse(data.toString());
				if (message.id !== id) return;
				socket.off("message", onMessage);
				resolve(message.result);
			};
			socket.on("message", onMessage);
			socket.send(JSON.stringify({ id, method }));
		});
	try {
		await call("HeapProfiler.collectGarbage");
		const usage = await call("Runtime.getHeapUsage");
		return usage.usedSize / 2 ** 20;
	} finally {
		socket.close();
	}
}
