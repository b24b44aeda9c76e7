/**
 * Agent definitions: markdown files whose frontmatter names and configures an agent and whose body is its
 * system prompt. They come from `<agent-dir>/agents/*.md`, a trusted project's `<cwd>/.skiff/agents/*.md`
 * (which win over the user's of the same name), and the bundled general `task` agent. A file that does not
 * parse is listed with its error, never dropped without a word.
 */
import { isMcpToolPattern } from "../mcp/index.js";
import { closeSync, fstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { THINKING_LEVELS, type ThinkingLevel } from "../../agent/types.js";
import { NotRegularFileError, openRegularFileSync } from "../../shared/regular-file.js";
import { type FrontmatterValue, parseFrontmatter } from "./frontmatter.js";

/** What an agent may be called (it is also a file and directory name). */
export const AGENT_NAME_PATTERN = "^[A-Za-z0-9_-]{1,64}$";
const AGENT_NAME = new RegExp(AGENT_NAME_PATTERN);
export const MAX_DESCRIPTION_CHARS = 1024;
/** Largest definition file read (a persona's may be as large; see personas). */
export const MAX_DEFINITION_BYTES = 256 * 1024;
/** Bounds of a definition's own limits. */
export const MAX_TURNS_LIMIT = 1000;
export const MAX_TIMEOUT_SECONDS = 24 * 60 * 60;

/** Where a definition comes from. */
export type AgentSource = "bundled" | "user" | "project" | "persona";

/** A parsed agent definition. */
export interface AgentDefinition {
	name: string;
	description: string;
	source: AgentSource;
	/** `provider/id`; the parent session's model when absent. */
	model?: string;
	thinking?: ThinkingLevel;
	/** The core tools it may use; all of them when absent. */
	tools?: string[];
	maxTurns?: number;
	timeoutSeconds?: number;
	systemPrompt: string;
}

/** One row of the catalog: a definition, or a file that could not be read as one (`error`). */
export type CatalogEntry = (AgentDefinition & { error?: undefined }) | { name: string; source: AgentSource; file: string; error: string };

/** The bundled general agent: does one task with every tool and reports back. */
export const TASK_AGENT: AgentDefinition = {
	name: "task",
	description: "A general coding agent: carries out one delegated task with every tool and reports the result.",
	source: "bundled",
	systemPrompt:
		"You are a subagent: another agent delegated one task to you. Work on it with your tools, without asking " +
		"questions (nobody answers them). When you are done, call `yield` once with your result: what you did, what " +
		"you found, and anything the delegating agent must know. Your result is all it sees of your work.",
};

/** The frontmatter keys a definition may have. */
const KNOWN_KEYS = new Set(["name", "description", "model", "thinking", "tools", "maxTurns", "timeoutSeconds"]);

/**
 * Reads one definition from markdown text; throws an Error naming what is wrong. `knownTools` are the core
 * tools a `tools` list may name.
 */
export function parseDefinition(text: string, source: AgentSource, knownTools: readonly string[]): AgentDefinition {
	const { fields, body } = parseFrontmatter(text);
	for (const key of fields.keys()) {
		if (!KNOWN_KEYS.has(key)) throw new Error(`unknown frontmatter key ${key} (known: ${[...KNOWN_KEYS].join(", ")})`);
	}
	const name = text1(fields, "name");
	if (!name || !AGENT_NAME.test(name)) throw new Error(`name must be 1 to 64 letters, digits, _ or - (got ${JSON.stringify(name ?? "")})`);
	const description = text1(fields, "description");
	if (!description) throw new Error("description is required");
	if (description.length > MAX_DESCRIPTION_CHARS) throw new Error(`description is longer than ${MAX_DESCRIPTION_CHARS} characters`);
	const definition: AgentDefinition = { name, description, source, systemPrompt: body };
	const model = text1(fields, "model");
	if (model !== undefined) {
		if (!/^[^/\s]+\/\S+$/.test(model)) throw new Error(`model must be provider/id (got ${JSON.stringify(model)})`);
		definition.model = model;
	}
	const thinking = text1(fields, "thinking");
	if (thinking !== undefined) {
		if (!(THINKING_LEVELS as readonly string[]).includes(thinking)) throw new Error(`thinking must be one of ${THINKING_LEVELS.join(", ")}`);
		definition.thinking = thinking as ThinkingLevel;
	}
	if (fields.has("tools")) {
		const raw = fields.get("tools");
		const tools = Array.isArray(raw) ? raw : String(raw).split(",").map((t) => t.trim()).filter(Boolean);
		// MCP tools (`mcp`, `mcp__<server>`, `mcp__<server>__<tool>`) are known only once their servers run.
		const unknown = tools.filter((t) => !knownTools.includes(t) && !isMcpToolPattern(t));
		if (unknown.length) throw new Error(`tools names unknown tools: ${unknown.join(", ")} (known: ${knownTools.join(", ")})`);
		definition.tools = tools;
	}
	const maxTurns = integer(fields, "maxTurns", MAX_TURNS_LIMIT);
	if (maxTurns !== undefined) definition.maxTurns = maxTurns;
	const timeoutSeconds = integer(fields, "timeoutSeconds", MAX_TIMEOUT_SECONDS);
	if (timeoutSeconds !== undefined) definition.timeoutSeconds = timeoutSeconds;
	return definition;
}

function text1(fields: Map<string, FrontmatterValue>, key: string): string | undefined {
	const value = fields.get(key);
	if (value === undefined) return undefined;
	if (Array.isArray(value)) throw new Error(`${key} must be a single value, not a list`);
	return String(value).trim();
}

function integer(fields: Map<string, FrontmatterValue>, key: string, max: number): number | undefined {
	const value = fields.get(key);
	if (value === undefined) return undefined;
	if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > max) {
		throw new Error(`${key} must be a whole number from 1 to ${max}`);
	}
	return value;
}

/**
 * The definitions of one folder (`*.md`, regular files only, each opened without following a link or waiting
 * on a FIFO and read through that handle: src/shared/regular-file.ts), each parsed or with its error.
 */
export function readDefinitionFolder(folder: string, source: AgentSource, knownTools: readonly string[]): CatalogEntry[] {
	let names: string[];
	try {
		names = readdirSync(folder).filter((n) => n.endsWith(".md")).sort();
	} catch {
		return []; // no folder: no definitions
	}
	return names.map((file): CatalogEntry => {
		const path = join(folder, file);
		try {
			return parseDefinition(readDefinition(path), source, knownTools);
		} catch (error) {
			return { name: file.slice(0, -3), source, file, error: (error as Error).message };
		}
	});
}

/** A definition file's text: a regular file (not a link) of at most MAX_DEFINITION_BYTES, else why not. */
function readDefinition(path: string): string {
	let fd: number;
	try {
		fd = openRegularFileSync(path, "refuse");
	} catch (error) {
		if (error instanceof NotRegularFileError) throw new Error(`it is not a regular file (${error.found})`);
		throw error;
	}
	try {
		if (fstatSync(fd).size > MAX_DEFINITION_BYTES) throw new Error(`it is larger than ${MAX_DEFINITION_BYTES / 1024} KiB`);
		return readFileSync(fd, "utf8");
	} finally {
		closeSync(fd);
	}
}

/**
 * The catalog for a working directory: the bundled agent, then the user's, then (trusted projects only) the
 * project's; a later definition of the same name replaces an earlier one.
 */
export function loadCatalog(options: { agentDir: string; cwd: string; trusted: boolean; knownTools: readonly string[] }): CatalogEntry[] {
	const byName = new Map<string, CatalogEntry>([[TASK_AGENT.name, TASK_AGENT]]);
	const folders: Array<[string, AgentSource]> = [[join(options.agentDir, "agents"), "user"]];
	if (options.trusted) folders.push([join(options.cwd, ".skiff", "agents"), "project"]);
	const broken: CatalogEntry[] = [];
	for (const [folder, source] of folders) {
		for (const entry of readDefinitionFolder(folder, source, options.knownTools)) {
			if (entry.error !== undefined) broken.push(entry);
			else byName.set(entry.name, entry);
		}
	}
	return [...byName.values(), ...broken];
}
