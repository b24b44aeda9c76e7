/** POSTs one body to /rpc over a keep-alive agent and returns the status and text of the answer. */
import { Agent, request } from "node:http";

export interface RpcAnswer {
	status: number;
	text: string;
}

export function rpcAgent(): Agent {
	return new Agent({ keepAlive: true, maxSockets: 8 });
}

export function postRpc(url: string, body: string | Buffer, contentType: string, agent: Agent, headers: Record<string, string> = {}): Promise<RpcAnswer> {
	return new Promise((resolve, reject) => {
		const req = request(`${url}/rpc`, { method: "POST", agent, headers: { "content-type": contentType, ...headers } }, (res) => {
			const chunks: Buffer[] = [];
			res.on("data", (chunk: Buffer) => chunks.push(chunk));
			res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
			res.on("error", reject);
		});
		req.on("error", reject);
		req.end(body);
	});
}
