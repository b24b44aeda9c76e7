/**
 * The trash of session files: `<agent-dir>/trash/sessions/<trashId>/`, one folder per deleted session holding
 * the file under its own name and `trashed.json` (where it was, its id, title and cwd, when). A deleted
 * session is never removed outright: it can be put back where it was.
 *
 * A move is a hard link to the new place then the removal of the old name, both in one file system, so it
 * never replaces a file already there (a link fails instead) and either name holds the whole file at every
 * moment; across file systems (EXDEV) it is a copy that refuses to replace, flushed, then the removal. Each
 * step's folder is flushed before the operation is acknowledged: on disk, not in a cache.
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { copyFile, link, lstat, mkdir, open, readdir, readFile, rm, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { PRIVATE_FILE_MODE, syncFolderAsync, writeFileAtomicallyAsync } from "../../shared/atomic-write.js";
import { CodedError } from "../../shared/errors.js";
import type { TrashedSession } from "../types.js";

/** The record kept beside a trashed file. */
const RECORD = "trashed.json";

/** Trash ids are made here (time, then random): they sort by deletion time, and a request cannot name a path. */
const TRASH_ID = /^[0-9]{13}-[0-9a-f]{8}$/;

export class SessionTrash {
	constructor(private readonly root: string) {}

	/** Moves `path` (the file of `sessionId`) into a new folder of the trash; resolves once it is there on disk. */
	async put(path: string, about: Omit<TrashedSession, "trashId" | "originalPath" | "deletedAt">): Promise<TrashedSession> {
		const trashId = `${Date.now()}-${randomBytes(4).toString("hex")}`;
		const folder = join(this.root, trashId);
		await mkdir(folder, { recursive: true, mode: 0o700 });
		const record: TrashedSession = { trashId, originalPath: path, deletedAt: new Date().toISOString(), ...about };
		try {
			// The record first: a crash after it and before the move leaves a folder without the file, which the
			// list skips, never a file in the trash that no record says where to put back.
			await writeFileAtomicallyAsync(join(folder, RECORD), `${JSON.stringify(record)}\n`, { mode: PRIVATE_FILE_MODE });
			await move(path, join(folder, basename(path)));
		} catch (error) {
			await rm(folder, { recursive: true, force: true }).catch(() => undefined);
			throw asCoded(error, `Could not move ${path} to the trash`);
		}
		await syncFolderAsync(dirname(folder));
		return record;
	}

	/** What the trash holds, newest first; folders without a readable record or their file are skipped. */
	async list(): Promise<TrashedSession[]> {
		let names: string[];
		try {
			names = await readdir(this.root);
		} catch {
			return [];
		}
		const found: TrashedSession[] = [];
		for (const name of names.filter((n) => TRASH_ID.test(n)).sort().reverse()) {
			const record = await this.read(name).catch(() => undefined);
			if (record) found.push(record);
		}
		return found;
	}

	/** Puts a trashed file back at its original path; refuses when something is there now. */
	async restore(trashId: string): Promise<TrashedSession> {
		if (!TRASH_ID.test(trashId)) throw new CodedError("not_found", `No trashed session ${JSON.stringify(trashId)}`);
		const record = await this.read(trashId).catch(() => undefined);
		if (!record) throw new CodedError("not_found", `No trashed session ${trashId}`);
		const folder = join(this.root, trashId);
		if (await exists(record.originalPath)) {
			throw new CodedError("conflict", `A file is already at ${record.originalPath}: session ${record.sessionId} was left in the trash (${trashId})`);
		}
		await mkdir(dirname(record.originalPath), { recursive: true, mode: 0o700 });
		try {
			await move(join(folder, basename(record.originalPath)), record.originalPath);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === "EEXIST") throw new CodedError("conflict", `A file is already at ${record.originalPath}: session ${record.sessionId} was left in the trash (${trashId})`);
			throw asCoded(error, `Could not restore session ${record.sessionId} to ${record.originalPath}`);
		}
		await rm(folder, { recursive: true, force: true });
		await syncFolderAsync(this.root).catch(() => undefined);
		return record;
	}

	/** A trash folder's record, when its file is there too. */
	private async read(trashId: string): Promise<TrashedSession | undefined> {
		const folder = join(this.root, trashId);
		const record = JSON.parse(await readFile(join(folder, RECORD), "utf8")) as TrashedSession;
		if (record.trashId !== trashId || typeof record.originalPath !== "string" || typeof record.sessionId !== "string") return undefined;
		return (await exists(join(folder, basename(record.originalPath)))) ? record : undefined;
	}
}

/** Moves a file without ever replacing one at `to`: link and unlink, or across file systems copy, flush and unlink. */
async function move(from: string, to: string): Promise<void> {
	try {
		await link(from, to);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
		await copyFile(from, to, constants.COPYFILE_EXCL);
		const handle = await open(to, "r");
		try {
			await handle.sync();
		} finally {
			await handle.close();
		}
	}
	await syncFolderAsync(dirname(to));
	await unlink(from);
	await syncFolderAsync(dirname(from));
}

async function exists(path: string): Promise<boolean> {
	try {
		await lstat(path);
		return true;
	} catch {
		return false;
	}
}

/** A system error as a coded one a client can read (its code and the operation, never file contents). */
function asCoded(error: unknown, what: string): Error {
	if (error instanceof CodedError) return error;
	const code = (error as NodeJS.ErrnoException).code;
	if (code === "ENOENT") return new CodedError("not_found", `${what}: the file is gone`);
	return new CodedError("io_error", `${what}: ${code ?? (error instanceof Error ? error.message : String(error))}`);
}
