/**
 * Every recorded session file by id, in memory: pi's layout `<sessions>/<project folder>/<timestamp>_<id>.jsonl`.
 * The index is brought up to date incrementally: a refresh reads the change time of the sessions folder and of
 * each project folder, and lists again only the folders that changed; a file is never parsed, except the
 * header line of one whose name does not carry its id.
 *
 * A refresh is written once, as a plan of batched disk reads (a generator), and run either on the caller's
 * thread (`refreshNow`, the catalog's synchronous methods) or off the event loop (`refresh`: each batch on the
 * thread pool, a few dozen reads at a time so the recorder's writes are not queued behind thousands of them).
 * Asynchronous refreshes are shared: every caller that arrives before one starts joins it, and callers that
 * arrive while one runs share the single one that follows it (which sees what changed before they asked). So
 * 128 commands naming unknown ids cost one or two refreshes, not 128.
 *
 * Memory is bounded by what is on disk: per file its name, its path and a map entry each way (about 700 bytes
 * measured: 5,000 sessions in 100 folders take 3.2 MiB of heap). Nothing is kept per lookup: an unknown id
 * leaves no trace (10,000 of them: no growth past noise).
 */
import { basename, dirname, join } from "node:path";
import type { AsyncDisk, DiskAnswers, DiskRead, SyncDisk } from "./session-disk.js";

/**
 * File systems stamp changes with a coarse clock (a few milliseconds): a folder changed this recently may
 * change again without its time moving, so it is listed again on the next refresh.
 */
const SETTLED_AFTER_NS = 1_000_000_000n;

/** Reads handed to the thread pool at once by an asynchronous refresh. */
const READS_AT_ONCE = 32;

/** One batch of reads a plan asks for; it is resumed with one answer per path, in order. */
export interface ReadBatch {
	read: DiskRead;
	paths: string[];
}

/** Work that reads the disk in batches and returns T; run by `runSync` or `runAsync`. */
export type Plan<T> = Generator<ReadBatch, T, unknown[]>;

/** Asks for one read of each path. */
export function* read<K extends DiskRead>(kind: K, paths: string[]): Plan<Array<DiskAnswers[K]>> {
	if (paths.length === 0) return [];
	return (yield { read: kind, paths }) as Array<DiskAnswers[K]>;
}

/** Runs a plan with synchronous reads. */
export function runSync<T>(plan: Plan<T>, disk: SyncDisk): T {
	let step = plan.next();
	while (!step.done) {
		const reader = disk[step.value.read] as (path: string) => unknown;
		step = plan.next(step.value.paths.map((path) => reader(path)));
	}
	return step.value;
}

/** Runs a plan off the event loop, `READS_AT_ONCE` reads at a time. */
export async function runAsync<T>(plan: Plan<T>, disk: AsyncDisk): Promise<T> {
	let step = plan.next();
	while (!step.done) {
		const reader = disk[step.value.read] as (path: string) => Promise<unknown>;
		const { paths } = step.value;
		const answers: unknown[] = [];
		for (let i = 0; i < paths.length; i += READS_AT_ONCE) answers.push(...(await Promise.all(paths.slice(i, i + READS_AT_ONCE).map(reader))));
		step = plan.next(answers);
	}
	return step.value;
}

/** A project folder as last listed: its change time and its session files' ids by name. */
interface IndexedFolder {
	changed: bigint;
	files: Map<string, string>;
}

/** An asynchronous refresh, and whether it has begun reading (until then, newcomers join it). */
interface SharedRefresh {
	begun: boolean;
	done: Promise<void>;
}

export class SessionIndex {
	private readonly folders = new Map<string, IndexedFolder>();
	/** Paths by id: one path, or several when copies of a file share an id. */
	private readonly ids = new Map<string, string | string[]>();
	private rootChanged = -1n;
	private current: SharedRefresh | undefined;
	private following: Promise<void> | undefined;
	/** Asynchronous refreshes run so far (tests count them). */
	refreshes = 0;

	constructor(
		private readonly sessionsDir: string,
		private readonly disk: { sync: SyncDisk; async: AsyncDisk },
	) {}

	/** Brings the index up to date on the caller's thread. */
	refreshNow(): void {
		runSync(this.refreshPlan(), this.disk.sync);
	}

	/** Brings the index up to date off the event loop; shared by concurrent callers (see the file's comment). */
	refresh(): Promise<void> {
		if (this.current && !this.current.begun) return this.current.done;
		if (this.current) {
			this.following ??= this.current.done.then(() => {
				this.following = undefined;
				return this.refresh();
			});
			return this.following;
		}
		const shared: SharedRefresh = { begun: false, done: Promise.resolve() };
		// Begins on the next turn of the loop, so that every lookup of the same burst of commands joins it.
		shared.done = new Promise<void>((resolve) => setImmediate(resolve))
			.then(() => {
				shared.begun = true;
				this.refreshes++;
				return runAsync(this.refreshPlan(), this.disk.async);
			})
			.catch(() => undefined) // every read is quiet; a bug here must not fail a lookup that can still answer
			.finally(() => {
				if (this.current === shared) this.current = undefined;
			});
		this.current = shared;
		return shared.done;
	}

	/** The files recorded with exactly this id, in the order they were found. */
	pathsOf(id: string): readonly string[] {
		const paths = this.ids.get(id);
		return paths === undefined ? [] : typeof paths === "string" ? [paths] : paths;
	}

	/** Every file whose id starts with `prefix`, with its id. */
	matching(prefix: string): Array<{ id: string; path: string }> {
		const found: Array<{ id: string; path: string }> = [];
		for (const id of this.ids.keys()) if (id.startsWith(prefix)) for (const path of this.pathsOf(id)) found.push({ id, path });
		return found;
	}

	/** Every indexed file. */
	files(): Array<{ id: string; path: string }> {
		return this.matching("");
	}

	/** The files of one project folder (a full path). */
	filesIn(dir: string): Array<{ id: string; path: string }> {
		return [...(this.folders.get(dir)?.files ?? [])].map(([name, id]) => ({ id, path: join(dir, name) }));
	}

	/** Forgets a file this process removed (pruning), without waiting for the next refresh. */
	forget(path: string): void {
		const [dir, name] = [dirname(path), basename(path)];
		if (this.folders.get(dir)?.files.has(name)) this.remove(dir, name);
	}

	private *refreshPlan(): Plan<void> {
		const root = this.sessionsDir;
		const [rootChanged] = yield* read("changed", [root]);
		if (rootChanged !== this.rootChanged) {
			this.rootChanged = settled(rootChanged!);
			const entries = (yield* read("list", [root]))[0]!.map((name) => join(root, name));
			const directory = yield* read("directory", entries);
			const present = new Set(entries.filter((_, i) => directory[i]));
			for (const dir of this.folders.keys()) if (!present.has(dir)) this.dropFolder(dir);
			for (const dir of present) if (!this.folders.has(dir)) this.folders.set(dir, { changed: -1n, files: new Map() });
		}
		const dirs = [...this.folders.keys()];
		const times = yield* read("changed", dirs);
		const changed = dirs.filter((dir, i) => {
			const folder = this.folders.get(dir);
			if (!folder || folder.changed === times[i]) return false;
			folder.changed = settled(times[i]!);
			return true;
		});
		// Listed and taken in a few folders at a time, so that a first build over thousands of files is many
		// short steps between which the event loop serves everyone else.
		const foreign: Array<{ dir: string; name: string }> = [];
		for (let i = 0; i < changed.length; i += READS_AT_ONCE) {
			const group = changed.slice(i, i + READS_AT_ONCE);
			const listings = yield* read("list", group);
			group.forEach((dir, j) => this.takeListing(dir, listings[j]!, foreign));
		}
		const headers = yield* read("header", foreign.map(({ dir, name }) => join(dir, name)));
		foreign.forEach(({ dir, name }, i) => {
			const id = headers[i];
			if (id && this.folders.has(dir) && !this.folders.get(dir)!.files.has(name)) this.add(dir, name, id);
		});
	}

	/** Brings one folder's files in line with its listing; names that do not carry an id go to `foreign`. */
	private takeListing(dir: string, listing: string[], foreign: Array<{ dir: string; name: string }>): void {
		const folder = this.folders.get(dir);
		if (!folder) return;
		const names = new Set(listing.filter((name) => name.endsWith(".jsonl")));
		for (const name of [...folder.files.keys()]) if (!names.has(name)) this.remove(dir, name);
		for (const name of names) {
			if (folder.files.has(name)) continue;
			const id = idFromFileName(name);
			if (id) this.add(dir, name, id);
			else foreign.push({ dir, name });
		}
	}

	private add(dir: string, name: string, id: string): void {
		this.folders.get(dir)!.files.set(name, id);
		const path = join(dir, name);
		const paths = this.ids.get(id);
		this.ids.set(id, paths === undefined ? path : typeof paths === "string" ? [paths, path] : [...paths, path]);
	}

	private remove(dir: string, name: string): void {
		const folder = this.folders.get(dir)!;
		const id = folder.files.get(name)!;
		folder.files.delete(name);
		const path = join(dir, name);
		const rest = this.pathsOf(id).filter((p) => p !== path);
		if (rest.length === 0) this.ids.delete(id);
		else this.ids.set(id, rest.length === 1 ? rest[0]! : rest);
	}

	private dropFolder(dir: string): void {
		for (const name of [...this.folders.get(dir)!.files.keys()]) this.remove(dir, name);
		this.folders.delete(dir);
	}
}

/** pi names files `<timestamp>_<id>.jsonl`; the timestamp has no underscore. */
function idFromFileName(name: string): string | undefined {
	const underscore = name.indexOf("_");
	if (underscore < 0) return undefined;
	const id = name.slice(underscore + 1, -".jsonl".length);
	return id.length > 0 ? id : undefined;
}

/** The change time to remember: -1 (list again next time) while it is too recent to be final. */
function settled(changed: bigint): bigint {
	return BigInt(Date.now()) * 1_000_000n - changed < SETTLED_AFTER_NS ? -1n : changed;
}
