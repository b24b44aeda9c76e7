/**
 * A fake Hindsight memory server (API v0.9.1) on loopback. Every request is checked against Hindsight's own
 * OpenAPI document, kept in this repository as `test/fixtures/hindsight-openapi.json` (route, method, body
 * schema: required fields, enums, types; a `null` enum is a 422 as on the real server). It stores retained items
 * verbatim, answers recall with tag and type filters, and can inject faults: statuses, slow headers, slow bodies,
 * oversized or invalid bodies, redirects, and a required API key. Optionally serves HTTPS with a throwaway
 * self-signed certificate.
 */
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { join } from "node:path";
import { OpenApi, type ValidationError } from "./openapi.js";
import { REPO_ROOT, tempDir } from "./skiff-process.js";

/** Hindsight's OpenAPI document (v0.9.1), a fixture in this repository; see test/fixtures/README.md. */
export const OPENAPI_PATH = join(REPO_ROOT, "test", "fixtures", "hindsight-openapi.json");

export interface LoggedRequest {
	method: string;
	path: string;
	headers: Record<string, string | string[] | undefined>;
	body: unknown;
	operationId?: string;
	/** The status the fake answered with. */
	status?: number;
}

export interface Fault {
	/** Only for this operation (e.g. "recall_memories"); any when absent. */
	operationId?: string;
	status?: number;
	body?: string;
	delayHeadersMs?: number;
	/** Send the body in small chunks with this delay between them. */
	trickleMs?: number;
	oversizedBytes?: number;
	invalidJson?: boolean;
	redirectTo?: string;
	redirectStatus?: number;
	/** How many requests it applies to (default 1). */
	times?: number;
}

interface Fact {
	id: string;
	text: string;
	type: string;
	context: string | null;
	tags: string[];
	mentioned_at: string;
}

export interface FakeHindsight {
	url: string;
	requests: LoggedRequest[];
	banks: Map<string, { reflect_mission?: string; retain_mission?: string; facts: Fact[] }>;
	/** The self-signed certificate when serving HTTPS. */
	ca?: string;
	fault(fault: Fault): void;
	clearFaults(): void;
	close(): Promise<void>;
}

export interface FakeHindsightOptions {
	https?: boolean;
	apiKey?: string;
}

const api = new OpenApi(OPENAPI_PATH);

export async function startFakeHindsight(options: FakeHindsightOptions = {}): Promise<FakeHindsight> {
	const requests: LoggedRequest[] = [];
	const faults: Fault[] = [];
	const banks: FakeHindsight["banks"] = new Map();
	let cert: { key: string; cert: string } | undefined;
	if (options.https) cert = selfSignedCertificate();

	const handler = (req: IncomingMessage, res: ServerResponse) => {
		const chunks: Buffer[] = [];
		req.on("data", (c: Buffer) => chunks.push(c));
		req.on("end", () => void handle(req, res, Buffer.concat(chunks).toString("utf8")));
	};

	async function handle(req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> {
		const path = (req.url ?? "/").split("?")[0]!;
		const logged: LoggedRequest = { method: req.method ?? "GET", path, headers: req.headers, body: raw };
		requests.push(logged);
		const reply = (status: number, body: unknown) => {
			logged.status = status;
			res.writeHead(status, { "content-type": "application/json" });
			res.end(JSON.stringify(body));
		};
		if (path === "/health") return reply(200, { status: "healthy" });
		const operation = api.find(logged.method, path);
		if (!operation) return reply(api.hasPath(path) ? 405 : 404, { detail: api.hasPath(path) ? "Method Not Allowed" : "Not Found" });
		logged.operationId = operation.operationId;

		const fault = takeFault(faults, operation.operationId);
		if (fault?.delayHeadersMs) await sleep(fault.delayHeadersMs);
		if (fault?.redirectTo) {
			logged.status = fault.redirectStatus ?? 307;
			res.writeHead(logged.status, { location: fault.redirectTo, "content-type": "application/json" });
			return void res.end("{}");
		}
		if (options.apiKey) {
			const auth = String(req.headers.authorization ?? "");
			if (auth !== `Bearer ${options.apiKey}` && auth !== options.apiKey) return reply(401, { detail: "Invalid API key" });
		}
		if (fault?.status) {
			logged.status = fault.status;
			res.writeHead(fault.status, { "content-type": "application/json", ...(fault.status === 503 ? { "retry-after": "1" } : {}) });
			return void res.end(fault.body ?? JSON.stringify({ detail: `injected ${fault.status}` }));
		}

		let body: unknown = {};
		if (raw.length > 0 || operation.bodyRequired) {
			try {
				body = JSON.parse(raw);
			} catch {
				return reply(422, { detail: [{ type: "json_invalid", loc: ["body", 0], msg: "JSON decode error", input: {} }] });
			}
		}
		logged.body = body;
		const errors = operation.bodySchema ? api.validate(operation.bodySchema, body) : [];
		errors.push(...semanticErrors(operation.operationId, body as Record<string, any>));
		if (errors.length) return reply(422, { detail: errors });

		const bankId = operation.params.bank_id!;
		const result = answer(operation.operationId, bankId, body as Record<string, any>, banks);
		if (result.status !== 200) return reply(result.status, result.body);
		if (fault?.invalidJson) {
			logged.status = 200;
			res.writeHead(200, { "content-type": "application/json" });
			return void res.end("{ this is not json");
		}
		if (fault?.oversizedBytes) {
			logged.status = 200;
			res.writeHead(200, { "content-type": "application/json" });
			return void res.end(JSON.stringify({ ...(result.body as object), padding: "x".repeat(fault.oversizedBytes) }));
		}
		if (fault?.trickleMs) {
			logged.status = 200;
			res.writeHead(200, { "content-type": "application/json" });
			const text = JSON.stringify(result.body);
			for (let i = 0; i < text.length && !res.destroyed; i += 4) {
				res.write(text.slice(i, i + 4));
				await sleep(fault.trickleMs);
			}
			return void res.end();
		}
		reply(200, result.body);
	}

	const server: Server = cert ? createHttpsServer({ key: cert.key, cert: cert.cert }, handler) : createHttpServer(handler);
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const port = (server.address() as { port: number }).port;
	return {
		url: `${cert ? "https" : "http"}://127.0.0.1:${port}`,
		requests,
		banks,
		ca: cert?.cert,
		fault: (fault) => faults.push({ times: 1, ...fault }),
		clearFaults: () => faults.splice(0),
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections?.();
				server.close(() => resolve());
			}),
	};
}

function takeFault(faults: Fault[], operationId: string): Fault | undefined {
	const index = faults.findIndex((f) => !f.operationId || f.operationId === operationId);
	if (index < 0) return undefined;
	const fault = faults[index]!;
	if (--fault.times! <= 0) faults.splice(index, 1);
	return fault;
}

/** Checks the server makes beyond the schema (hindsight_api/api/http.py). */
function semanticErrors(operationId: string, body: Record<string, any>): ValidationError[] {
	const errors: ValidationError[] = [];
	if ((operationId === "recall_memories" || operationId === "reflect") && typeof body.query === "string" && !/\w/.test(body.query)) {
		errors.push({ type: "value_error", loc: ["body", "query"], msg: "Query must contain at least one word character" });
	}
	if (body.tags && body.tag_groups) errors.push({ type: "value_error", loc: ["body"], msg: "tags and tag_groups are mutually exclusive" });
	if (operationId === "retain_memories") {
		(body.items ?? []).forEach((item: any, i: number) => {
			if (typeof item?.content === "string" && !item.content.trim()) errors.push({ type: "value_error", loc: ["body", "items", i, "content"], msg: "content cannot be empty" });
		});
	}
	return errors;
}

function answer(operationId: string, bankId: string, body: Record<string, any>, banks: FakeHindsight["banks"]): { status: number; body: unknown } {
	const bank = () => {
		let b = banks.get(bankId);
		if (!b) banks.set(bankId, (b = { facts: [] }));
		return b;
	};
	switch (operationId) {
		case "create_or_update_bank": {
			const b = bank();
			const mission = body.reflect_mission ?? body.mission ?? body.background;
			if (mission != null) b.reflect_mission = mission;
			if (body.retain_mission != null) b.retain_mission = body.retain_mission;
			return { status: 200, body: { bank_id: bankId, name: bankId, disposition: { skepticism: 3, literalism: 3, empathy: 3 }, mission: b.reflect_mission ?? "", background: "" } };
		}
		case "retain_memories": {
			const b = bank();
			for (const item of body.items as any[]) {
				b.facts.push({ id: randomUUID(), text: item.content, type: "world", context: item.context ?? null, tags: item.tags ?? [], mentioned_at: new Date().toISOString() });
			}
			return { status: 200, body: { success: true, bank_id: bankId, items_count: body.items.length, async: false, usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } } };
		}
		case "recall_memories": {
			if (body.query.split(/\s+/).length > 500) return { status: 400, body: { detail: "Query too long: exceeds maximum of 500" } };
			const facts = matching(banks.get(bankId)?.facts ?? [], body).filter((f) => !body.types?.length || body.types.includes(f.type));
			let budget = body.max_tokens ?? 4096;
			const results = [];
			for (const f of facts) {
				budget -= Math.ceil(f.text.length / 4);
				if (budget < 0) break;
				results.push({ ...f, entities: null, occurred_start: null, occurred_end: null, document_id: null, metadata: null, chunk_id: null, source_fact_ids: null, scores: null });
			}
			return { status: 200, body: { results } };
		}
		case "get_bank_profile": {
			const b = banks.get(bankId);
			if (!b) return { status: 404, body: { detail: `Bank '${bankId}' not found` } };
			return { status: 200, body: { bank_id: bankId, name: bankId, disposition: { skepticism: 3, literalism: 3, empathy: 3 }, mission: b.reflect_mission ?? "", background: null } };
		}
		case "reflect": {
			bank();
			const facts = matching(banks.get(bankId)?.facts ?? [], body).filter((f) => !body.fact_types?.length || body.fact_types.includes(f.type));
			return { status: 200, body: { text: facts.length ? `Based on memory: ${facts.map((f) => f.text).join("; ")}` : "", based_on: null, structured_output: null, usage: null, trace: null } };
		}
		default:
			return { status: 404, body: { detail: "Not Found" } };
	}
}

/** Hindsight's tag rules for `any` (overlap or untagged) and `all`, then token-overlap order. */
function matching(facts: Fact[], body: Record<string, any>): Fact[] {
	const tags: string[] = body.tags ?? [];
	const mode = body.tags_match ?? "any";
	const filtered = facts.filter((f) => {
		if (tags.length === 0) return mode !== "exact" || f.tags.length === 0;
		if (mode === "any") return f.tags.length === 0 || f.tags.some((t) => tags.includes(t));
		if (mode === "all") return f.tags.length === 0 || tags.every((t) => f.tags.includes(t));
		if (mode === "any_strict") return f.tags.some((t) => tags.includes(t));
		if (mode === "all_strict") return tags.every((t) => f.tags.includes(t));
		return f.tags.length === tags.length && tags.every((t) => f.tags.includes(t));
	});
	const words = new Set(String(body.query).toLowerCase().split(/\W+/).filter(Boolean));
	const overlap = (f: Fact) => f.text.toLowerCase().split(/\W+/).filter((w) => words.has(w)).length;
	return filtered.filter((f) => overlap(f) > 0).sort((a, b) => overlap(b) - overlap(a));
}

function selfSignedCertificate(): { key: string; cert: string } {
	const dir = tempDir("skiff-cert-");
	execFileSync("openssl", [
		"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
		"-addext", "subjectAltName=IP:127.0.0.1", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"),
	], { stdio: "ignore" });
	return { key: readFileSync(join(dir, "key.pem"), "utf8"), cert: readFileSync(join(dir, "cert.pem"), "utf8") };
}

function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}
