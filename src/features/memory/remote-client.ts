/**
 * The HTTP client of the remote memory backend (a Hindsight server, API v0.9.1): recall, retain, reflect
 * and the idempotent bank PUT, sent before every retain and reflect (never remembered: a bank deleted or given
 * other missions on the server is made again as configured, at the cost of one more round trip). It follows redirects itself so that every hop is checked before anything is
 * sent there: in secure mode only https, so the bearer token can never reach a plaintext target; at most
 * 10 hops; the token dropped when the origin changes. Bodies are bounded before they are decoded, every
 * call has its own deadline, and errors name the operation and the status with credentials redacted.
 */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { REDACTED, redactSecrets } from "../../shared/redact.js";
import type { MemorySettings } from "./settings.js";

export const MAX_RESPONSE_BYTES = 256 * 1024;
export const MAX_INPUT_BYTES = 1024 * 1024;
export const MAX_REDIRECTS = 10;
/** How much of an error body is quoted in the error message. */
const ERROR_DETAIL_BYTES = 2048;

export type RemoteOperation = "recall" | "retain" | "reflect" | "createBank" | "status";

/** What one look at the bank found: the server answered with this status; whether the bank exists, or what is wrong. */
export interface BankStatus {
	/** The HTTP status of the bank profile request (200: the bank exists; 404: it is created on the first write). */
	status: number;
	bankExists?: boolean;
	/** Why the answer is not a good one (the token refused, a server error), secrets redacted. */
	problem?: string;
}

/** Where a call goes: the bank and the tags of the namespace (see remote-scope.ts). */
export interface RemoteScope {
	bank: string;
	/** Tags for retain, and the recall/reflect filter (with tags_match "any"); absent when unscoped. */
	tags?: string[];
}

export interface RemoteClientOptions {
	/** Extra trusted certificates (tests use a throwaway self-signed one). */
	ca?: string | Buffer;
	userAgent?: string;
}

export class RemoteMemoryError extends Error {}

interface HttpResult {
	status: number;
	body: Buffer;
}

export class RemoteMemoryClient {
	constructor(
		private readonly settings: MemorySettings,
		private readonly options: RemoteClientOptions = {},
	) {}

	async recall(query: string, scope: RemoteScope, signal?: AbortSignal): Promise<string> {
		requireText("recall query", query);
		const body: Record<string, unknown> = {
			query,
			types: this.settings.remoteRecallTypes,
			max_tokens: this.settings.remoteRecallMaxTokens,
			budget: this.settings.remoteRecallBudget,
			include: { entities: null }, // entity maps can push responses past the size cap
			...tagFilter(scope),
		};
		const response = await this.call("recall", "POST", `${bankPath(scope.bank)}/memories/recall`, body, this.settings.remoteRecallTimeoutMs, signal);
		const results = (response as { results?: unknown }).results;
		if (!Array.isArray(results)) throw new RemoteMemoryError("remote memory recall returned no results list");
		const lines = results.flatMap((item) => {
			const { text, type, mentioned_at } = (item ?? {}) as { text?: unknown; type?: unknown; mentioned_at?: unknown };
			if (typeof text !== "string") return [];
			return [`- ${redactSecrets(text)}${typeof type === "string" ? ` [${type}]` : ""}${typeof mentioned_at === "string" ? ` (${mentioned_at})` : ""}`];
		});
		return lines.length ? lines.join("\n\n") : "No relevant memories found.";
	}

	async retain(content: string, context: string | undefined, scope: RemoteScope, signal?: AbortSignal): Promise<string> {
		requireText("retain content", content);
		if (context !== undefined) requireText("retain context", context);
		await this.ensureBank(scope.bank, signal);
		const item: Record<string, unknown> = { content };
		if (context !== undefined) item.context = context;
		if (scope.tags) item.tags = scope.tags;
		await this.call("retain", "POST", `${bankPath(scope.bank)}/memories`, { items: [item], async: false }, this.settings.remoteRetainTimeoutMs, signal);
		return "1 memory retained.";
	}

	async reflect(query: string, context: string | undefined, scope: RemoteScope, signal?: AbortSignal): Promise<string> {
		requireText("reflect query", query);
		if (context !== undefined) requireText("reflect context", context);
		await this.ensureBank(scope.bank, signal);
		// The same budget, types and token limit as recall (Hindsight names the types `fact_types` here).
		const body: Record<string, unknown> = {
			query,
			budget: this.settings.remoteRecallBudget,
			fact_types: this.settings.remoteRecallTypes,
			max_tokens: this.settings.remoteRecallMaxTokens,
			...tagFilter(scope),
		};
		if (context !== undefined) body.context = context;
		const response = await this.call("reflect", "POST", `${bankPath(scope.bank)}/reflect`, body, this.settings.remoteReflectTimeoutMs, signal);
		const text = typeof (response as { text?: unknown }).text === "string" ? (response as { text: string }).text.trim() : "";
		return text ? redactSecrets(text) : "No relevant information found to reflect on.";
	}

	/** Creates or updates the bank with its missions (idempotent on the server; sent every time, see above). */
	async ensureBank(bank: string, signal?: AbortSignal): Promise<void> {
		const { remoteBankMission, remoteRetainMission } = this.settings;
		const body: Record<string, unknown> = {};
		if (remoteBankMission !== undefined) body.reflect_mission = remoteBankMission;
		if (remoteRetainMission !== undefined) body.retain_mission = remoteRetainMission;
		await this.call("createBank", "PUT", bankPath(bank), body, this.settings.remoteRequestTimeoutMs, signal);
	}

	/**
	 * One cheap, read-only request: GET the bank's profile. A 200 or a 404 (no bank yet) means the server is
	 * reachable and took the token; another status is reported as a problem; throws only when the server could
	 * not be reached (or may not be, by the plaintext rule). Never creates the bank.
	 */
	async bankStatus(bank: string, timeoutMs: number, signal?: AbortSignal): Promise<BankStatus> {
		const base = this.settings.remoteApiUrl;
		if (!base) throw new RemoteMemoryError("remote memory is not configured: set memory.remoteApiUrl in settings.json");
		const deadline = AbortSignal.timeout(timeoutMs);
		const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
		let result: HttpResult;
		try {
			result = await this.send("status", "GET", new URL(`${base}${bankPath(bank)}/profile`), undefined, combined);
		} catch (error) {
			if (deadline.aborted) throw new RemoteMemoryError(`remote memory status timed out after ${Math.ceil(timeoutMs / 1000)} s`);
			if (error instanceof RemoteMemoryError) throw error;
			throw new RemoteMemoryError(`remote memory is unreachable: ${this.redact((error as Error).message)}`);
		}
		if (result.status === 200 || result.status === 404) return { status: result.status, bankExists: result.status === 200 };
		if (result.status === 401 || result.status === 403) {
			return { status: result.status, problem: `the memory server refused the token (HTTP ${result.status}): check memory.remoteApiToken` };
		}
		const detail = this.redact(result.body.subarray(0, ERROR_DETAIL_BYTES).toString("utf8").trim());
		return { status: result.status, problem: `the memory server answered HTTP ${result.status}${detail ? `: ${detail}` : ""}` };
	}

	/** Error text with credential shapes masked, and the configured token masked whatever its shape. */
	private redact(text: string): string {
		const token = this.settings.remoteApiToken;
		const masked = token ? text.split(token).join(REDACTED) : text;
		return redactSecrets(masked);
	}

	private async call(op: RemoteOperation, method: string, path: string, body: unknown, timeoutMs: number, signal?: AbortSignal): Promise<unknown> {
		const base = this.settings.remoteApiUrl;
		if (!base) throw new RemoteMemoryError("remote memory is not configured: set memory.remoteApiUrl in settings.json");
		const deadline = AbortSignal.timeout(timeoutMs);
		const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
		let result: HttpResult;
		try {
			result = await this.send(op, method, new URL(`${base}${path}`), JSON.stringify(body), combined);
		} catch (error) {
			if (deadline.aborted) throw new RemoteMemoryError(`remote memory ${op} timed out after ${Math.ceil(timeoutMs / 1000)} s`);
			if (signal?.aborted) throw new RemoteMemoryError(`remote memory ${op} was aborted`);
			if (error instanceof RemoteMemoryError) throw error;
			throw new RemoteMemoryError(`remote memory ${op} request failed: ${this.redact((error as Error).message)}`);
		}
		if (result.status < 200 || result.status > 299) {
			const detail = this.redact(result.body.subarray(0, ERROR_DETAIL_BYTES).toString("utf8").trim());
			throw new RemoteMemoryError(`remote memory ${op} failed (HTTP ${result.status})${detail ? `: ${detail}` : ""}`);
		}
		try {
			return JSON.parse(result.body.toString("utf8"));
		} catch {
			throw new RemoteMemoryError(`remote memory ${op} returned invalid JSON`);
		}
	}

	/** One request, following redirects by hand with every hop checked before it is contacted. */
	private async send(op: RemoteOperation, method: string, url: URL, body: string | undefined, signal: AbortSignal): Promise<HttpResult> {
		const origin = url.origin;
		for (let hop = 0; ; hop++) {
			if (url.protocol !== "https:" && !(url.protocol === "http:" && this.settings.remoteAllowInsecure)) {
				throw new RemoteMemoryError(
					hop === 0
						? `refusing plaintext remote memory endpoint for ${op}: use https or set memory.remoteAllowInsecure`
						: `refusing remote memory ${op} redirect to a plaintext URL`,
				);
			}
			const headers: Record<string, string> = { Accept: "application/json", "User-Agent": this.options.userAgent ?? "skiff" };
			if (body !== undefined) headers["Content-Type"] = "application/json";
			// The token goes only in Authorization, and only to the configured origin.
			if (this.settings.remoteApiToken && url.origin === origin) headers.Authorization = `Bearer ${this.settings.remoteApiToken}`;
			const response = await this.exchange(method, url, headers, body, signal);
			const location = response.headers.location;
			if (response.statusCode && [301, 302, 303, 307, 308].includes(response.statusCode) && location) {
				response.resume();
				if (hop + 1 > MAX_REDIRECTS) throw new RemoteMemoryError(`too many remote memory redirects for ${op} (limit ${MAX_REDIRECTS})`);
				url = new URL(location, url);
				if (response.statusCode === 303 || ((response.statusCode === 301 || response.statusCode === 302) && method === "POST")) {
					method = "GET";
					body = undefined;
				}
				continue;
			}
			const ok = (response.statusCode ?? 0) >= 200 && (response.statusCode ?? 0) < 300;
			return { status: response.statusCode ?? 0, body: await readBounded(response, ok ? MAX_RESPONSE_BYTES : ERROR_DETAIL_BYTES, ok, op) };
		}
	}

	private exchange(method: string, url: URL, headers: Record<string, string>, body: string | undefined, signal: AbortSignal): Promise<IncomingMessage> {
		return new Promise((resolve, reject) => {
			const send = url.protocol === "https:" ? httpsRequest : httpRequest;
			const req = send(url, { method, headers, signal, ca: url.protocol === "https:" ? this.options.ca : undefined }, resolve);
			req.on("error", reject);
			req.end(body);
		});
	}
}

/**
 * Reads a body up to `limit` bytes. A success body past the limit is an error (it is never decoded); an
 * error body is simply cut, since only its start is quoted.
 */
function readBounded(response: IncomingMessage, limit: number, strict: boolean, op: RemoteOperation): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		response.on("data", (chunk: Buffer) => {
			if (size + chunk.length > limit) {
				chunks.push(chunk.subarray(0, limit - size));
				if (strict) reject(new RemoteMemoryError(`remote memory ${op} response exceeds the ${MAX_RESPONSE_BYTES}-byte limit`));
				else resolve(Buffer.concat(chunks));
				response.destroy(); // settled first: the abort this causes is not an error here
				return;
			}
			size += chunk.length;
			chunks.push(chunk);
		});
		response.on("end", () => resolve(Buffer.concat(chunks)));
		response.on("error", reject);
		response.on("aborted", () => reject(new Error("response aborted")));
	});
}

function requireText(label: string, value: string): void {
	if (!value.trim()) throw new RemoteMemoryError(`${label} is required`);
	if (Buffer.byteLength(value, "utf8") > MAX_INPUT_BYTES) throw new RemoteMemoryError(`${label} exceeds the 1 MiB limit`);
}

function tagFilter(scope: RemoteScope): Record<string, unknown> {
	return scope.tags ? { tags: scope.tags, tags_match: "any" } : {};
}

function bankPath(bank: string): string {
	return `/v1/default/banks/${encodeURIComponent(bank)}`;
}
