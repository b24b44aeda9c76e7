/**
 * The Files panel's state: the folder shown of the current session's working directory (`files_list`, one level,
 * a page at a time: "Show more" reads the page after the last entry shown, by its cursor, so files added or
 * removed meanwhile neither hide an entry nor show one twice), and the file previewed (`files_read`). Read when asked
 * (opening the panel, a folder, a file, Refresh): the files are the agent's to change, and no event says when.
 * A session switch starts again at its root; an answer for a folder or file no longer shown is dropped.
 */
import type { FileEntry, FilesListResult, FilesReadResult } from "../../../src/client/index.js";
import { failureText, type PanelContext } from "./panel-context";

export interface Folder {
	path: string;
	entries: FileEntry[];
	listing?: FilesListResult;
	error?: string;
}

export interface Preview {
	path: string;
	file?: FilesReadResult;
	error?: string;
}

export class FilesState {
	folder: Folder = { path: "", entries: [] };
	preview: Preview | undefined;
	private session: string | undefined;
	/** Bumped by every request: an answer to an older one is dropped. */
	private asked = 0;

	constructor(private readonly context: PanelContext) {}

	/** Called when the panel shows, connected: another session starts again at its root; a failed listing is read again. */
	sync(): void {
		const session = this.context.sessionId();
		if (session === this.session && !this.folder.error) return;
		this.session = session;
		this.preview = undefined;
		if (session) void this.open("");
	}

	/** Lists the folder `path` ("" for the root) from its first entry. */
	async open(path: string): Promise<void> {
		this.preview = undefined;
		this.folder = { path, entries: [] };
		await this.list(path);
	}

	/** The next page of the folder shown. */
	async more(): Promise<void> {
		const after = this.folder.listing?.nextAfter;
		if (after !== undefined) await this.list(this.folder.path, after);
	}

	async read(path: string): Promise<void> {
		const asked = ++this.asked;
		this.preview = { path };
		this.context.changed();
		const preview: Preview = { path };
		try {
			preview.file = await this.context.client.call("files_read", { path }, { sessionId: this.session });
		} catch (error) {
			preview.error = failureText(error);
		}
		if (asked !== this.asked) return;
		this.preview = preview;
		this.context.changed();
	}

	/** The first page of `path`, or with `after` the page after that cursor, added to the entries shown. */
	private async list(path: string, after?: string): Promise<void> {
		const asked = ++this.asked;
		this.context.changed();
		try {
			const listing = await this.context.client.call("files_list", after === undefined ? { path } : { path, after }, { sessionId: this.session });
			if (asked !== this.asked) return;
			this.folder = { path, entries: after !== undefined ? [...this.folder.entries, ...listing.entries] : listing.entries, listing };
		} catch (error) {
			if (asked !== this.asked) return;
			this.folder = { ...this.folder, error: failureText(error) };
		}
		this.context.changed();
	}
}
