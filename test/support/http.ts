/** A raw HTTP request helper (node:http), so tests can set any header, Host and Origin included. */
import { request } from "node:http";

export interface HttpResult {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	body: string;
}

export function httpRequest(
	url: string,
	options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<HttpResult> {
	return new Promise((resolve, reject) => {
		const req = request(url, { method: options.method ?? "GET", headers: options.headers }, (res) => {
			let body = "";
			res.setEncoding("utf8");
			res.on("data", (d) => (body += d));
			res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
		});
		req.on("error", reject);
		req.end(options.body);
	});
}

/** POSTs one JSON command to /rpc with extra headers. */
export function postRpc(baseUrl: string, command: object, headers: Record<string, string> = {}): Promise<HttpResult> {
	return httpRequest(`${baseUrl}/rpc`, {
		method: "POST",
		headers: { "content-type": "application/json", ...headers },
		body: JSON.stringify(command),
	});
}
