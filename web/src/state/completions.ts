/**
 * What the composer offers as it is typed: after `/` at the start of the message, the slash commands the
 * service reports (`get_commands`: prompt templates and skills, with their descriptions); after `@`, the
 * project's paths (`files_list`, one folder at a time: choosing a folder walks into it). Answers are kept
 * while a completion is open (`reset` forgets them), so each keystroke filters instead of asking again.
 */
import type { FileEntry, SkiffClient } from "../../../src/client/index.js";

/** What is being completed: the typed word from `start` to the caret `end`, without its `/` or `@`. */
export interface Query {
	kind: "/" | "@";
	start: number;
	end: number;
	word: string;
}

export interface Choice {
	label: string;
	detail?: string;
	/** The text that replaces the typed word. */
	insert: string;
	/** A folder: completing goes on inside it. */
	folder?: boolean;
}

/** The most choices shown at once. */
export const MAX_CHOICES = 50;
/** How far back a word is looked for from the caret (a path is at most 4,096 characters). */
const MAX_WORD = 4096;

/** The word at the caret being completed, if any: `/name` opening the message, or `@path` anywhere. */
export function queryAt(text: string, caret: number): Query | undefined {
	let start = caret;
	while (start > 0 && caret - start < MAX_WORD && !/\s/.test(text[start - 1]!)) start--;
	const sigil = text[start];
	if (sigil === "/" && start === 0) return { kind: "/", start, end: caret, word: text.slice(1, caret) };
	if (sigil === "@") return { kind: "@", start, end: caret, word: text.slice(start + 1, caret) };
	return undefined;
}

export class Completions {
	private commands?: Promise<Choice[]>;
	private readonly folders = new Map<string, Promise<FileEntry[]>>();

	constructor(
		private readonly client: SkiffClient,
		private readonly sessionId: () => string | undefined,
	) {}

	/** The session the kept answers are of. */
	private session: string | undefined;

	/** The choices for `query`, best first; rejects when the service could not answer. */
	async choices(query: Query): Promise<Choice[]> {
		if (this.session !== this.sessionId()) this.reset();
		this.session = this.sessionId();
		const word = query.word.toLowerCase();
		if (query.kind === "/") {
			this.commands ??= this.client.call("get_commands", {}, { sessionId: this.sessionId() }).then(({ commands }) =>
				commands.map((command) => ({ label: `/${command.name}`, detail: command.description, insert: `/${command.name} ` })),
			);
			this.commands.catch(() => (this.commands = undefined));
			const all = await this.commands;
			return all.filter((choice) => choice.label.slice(1).toLowerCase().startsWith(word)).slice(0, MAX_CHOICES);
		}
		const slash = query.word.lastIndexOf("/");
		const folder = query.word.slice(0, slash + 1);
		const prefix = word.slice(slash + 1);
		let entries = this.folders.get(folder);
		if (!entries) {
			entries = this.client.call("files_list", { path: folder }, { sessionId: this.sessionId() }).then((listing) => listing.entries);
			this.folders.set(folder, entries);
			entries.catch(() => this.folders.delete(folder));
		}
		// What git ignores (node_modules, build output) and git's own folder are not offered, as pi's completion does not;
		// nor a name the service cannot open by its spelling (`unnamable`): the mention would go as bare text.
		return (await entries)
			.filter((entry) => !entry.ignored && !entry.unnamable && entry.name !== ".git" && entry.name.toLowerCase().startsWith(prefix))
			.slice(0, MAX_CHOICES)
			.map((entry) => {
				const isFolder = entry.kind === "directory" || entry.target === "directory";
				return { label: isFolder ? `${entry.name}/` : entry.name, insert: `@${entry.path}${isFolder ? "/" : " "}`, folder: isFolder };
			});
	}

	/** Forgets what was read: files and commands may have changed by the next completion. */
	reset(): void {
		this.commands = undefined;
		this.folders.clear();
	}
}
