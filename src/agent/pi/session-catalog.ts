/**
 * Finds recorded sessions on disk: pi's layout `<agent-dir>/sessions/<encoded-cwd>/<timestamp>_<id>.jsonl`.
 * Resolving an id or prefix reads only directory listings (and a header line for foreign file names), so
 * it stays fast however long the sessions are.
 */
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import type { SessionCatalog, SessionFileRef, SessionSummary } from "../types.js";

export class PiSessionCatalog implements SessionCatalog {
	constructor(private readonly sessionsDir: string) {}

	/** Every recorded session file, newest first. */
	files(): SessionFileRef[] {
		const refs: SessionFileRef[] = [];
		for (const dir of subdirectories(this.sessionsDir)) {
			for (const name of safeReaddir(dir)) {
				if (!name.endsWith(".jsonl")) continue;
				const path = join(dir, name);
				const id = idFromFileName(name) ?? idFromHeader(path);
				if (!id) continue;
				refs.push({ id, path, modifiedMs: safeMtime(path) });
			}
		}
		return refs.sort((a, b) => b.modifiedMs - a.modifiedMs);
	}

	/** The newest recorded session whose folder belongs to `cwd`, if any (for --continue). */
	newestFor(cwd: string): SessionFileRef | undefined {
		const folder = projectFolderName(cwd);
		return this.files().find((f) => f.path.startsWith(join(this.sessionsDir, folder) + "/"));
	}

	/** The session file with exactly this id, if recorded. */
	byId(id: string): SessionFileRef | undefined {
		return this.files().find((f) => f.id === id);
	}

	/**
	 * Resolves what a user typed: a path to a session file, a full id, or an unambiguous id prefix.
	 * Throws an error that says what was not found or which sessions a prefix matched.
	 */
	resolve(reference: string, baseDir: string): SessionFileRef {
		const trimmed = reference.trim();
		if (!trimmed) throw new Error("Session reference is empty: give an id, an id prefix or a path");
		if (looksLikePath(trimmed)) {
			const path = isAbsolute(trimmed) ? trimmed : resolve(baseDir, trimmed);
			if (!existsSync(path) || !statSync(path).isFile()) throw new Error(`No session file at ${path}`);
			const id = idFromHeader(path);
			if (!id) throw new Error(`${path} is not a session file (no session header)`);
			return { id, path, modifiedMs: safeMtime(path) };
		}
		const files = this.files();
		const exact = files.find((f) => f.id === trimmed);
		if (exact) return exact;
		const matches = files.filter((f) => f.id.startsWith(trimmed));
		if (matches.length === 1) return matches[0]!;
		if (matches.length === 0) throw new Error(`No recorded session matches "${trimmed}"`);
		const sample = matches.slice(0, 5).map((m) => m.id).join(", ");
		throw new Error(`Session prefix "${trimmed}" is ambiguous: ${matches.length} sessions match (${sample})`);
	}

	/** Summaries of this project's sessions, or of all projects'. Parses the files (pi's listing). */
	async list(scope: "project" | "all", cwd: string): Promise<Omit<SessionSummary, "loaded" | "primary">[]> {
		const infos = scope === "all" ? await SessionManager.listAll() : await SessionManager.list(cwd);
		return infos.map((info) => ({
			sessionId: info.id,
			path: info.path,
			cwd: info.cwd,
			name: info.name,
			created: info.created.toISOString(),
			modified: info.modified.toISOString(),
			messageCount: info.messageCount,
			firstMessage: info.firstMessage,
		}));
	}
}

/** pi's folder name for a project: the cwd with separators replaced, wrapped in dashes. */
function projectFolderName(cwd: string): string {
	return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

function looksLikePath(reference: string): boolean {
	return reference.includes("/") || reference.includes("\\") || reference.endsWith(".jsonl");
}

/** pi names files `<timestamp>_<id>.jsonl`; the timestamp has no underscore. */
function idFromFileName(name: string): string | undefined {
	const underscore = name.indexOf("_");
	if (underscore < 0) return undefined;
	const id = name.slice(underscore + 1, -".jsonl".length);
	return id.length > 0 ? id : undefined;
}

const HEADER_READ_BYTES = 4096;

function idFromHeader(path: string): string | undefined {
	let fd: number | undefined;
	try {
		fd = openSync(path, "r");
		const buffer = Buffer.alloc(HEADER_READ_BYTES);
		const length = readSync(fd, buffer, 0, HEADER_READ_BYTES, 0);
		const firstLine = buffer.subarray(0, length).toString("utf8").replace(/^\uFEFF/, "").split("\n", 1)[0] ?? "";
		const header = JSON.parse(firstLine) as { type?: unknown; id?: unknown };
		return header.type === "session" && typeof header.id === "string" ? header.id : undefined;
	} catch {
		return undefined;
	} finally {
		if (fd !== undefined) closeSync(fd);
	}
}

function subdirectories(dir: string): string[] {
	try {
		return readdirSync(dir, { withFileTypes: true })
			.filter((e) => e.isDirectory())
			.map((e) => join(dir, e.name));
	} catch {
		return [];
	}
}

function safeReaddir(dir: string): string[] {
	try {
		return readdirSync(dir);
	} catch {
		return [];
	}
}

function safeMtime(path: string): number {
	try {
		return statSync(path).mtimeMs;
	} catch {
		return 0;
	}
}
