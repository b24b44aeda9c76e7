/** The shapes the changes commands answer with (they document the protocol and type the typed client). */
import { type Static, Type } from "typebox";

/** At most this many changed files are listed (the rest are counted, `truncated`). */
export const MAX_CHANGED_FILES = 1_000;
/** A diff answered is cut at this many bytes (at a line's end), `truncated`. */
export const MAX_DIFF_BYTES = 512 * 1024;
/** At most this many paths in one revert. */
export const MAX_REVERT_PATHS = 200;
/** A path as a client names it: relative to the session's working directory. */
export const MAX_PATH_CHARS = 4_096;

export const CHANGE_STATUSES = ["added", "modified", "deleted", "renamed", "untracked"] as const;
export type ChangeStatus = (typeof CHANGE_STATUSES)[number];

export const SINCE_VALUES = ["head", "session_start"] as const;
export type Since = (typeof SINCE_VALUES)[number];

export const SinceSchema = Type.Optional(
	Type.Enum(SINCE_VALUES, {
		description:
			"In a git repository: `head` (default), the changes against the commit checked out; `session_start`, the changes " +
			"since the session's first prompt (the commit then, and the untracked files it found then left out unless changed). " +
			"Outside git there is one base, what the session's edit and write tool calls found: this is ignored.",
	}),
);

export const ChangesBaseSchema = Type.Object(
	{
		kind: Type.Enum(["head", "session_start", "recorded"], {
			description:
				"`head`: the commit checked out (the empty tree in a repository without commits); `session_start`: the commit " +
				"and untracked files at the session's first prompt; `recorded`: outside git, the content each file had when the " +
				"session's edit or write first touched it.",
		}),
		commit: Type.Optional(Type.String({ description: "The base commit (git), absent in a repository without commits." })),
		description: Type.String({ description: "Which base is shown, in words, for the panel." }),
	},
	{ title: "ChangesBase" },
);

export const RepositoryStateSchema = Type.Object(
	{
		root: Type.String({ description: "The repository's top folder." }),
		branch: Type.Optional(Type.String({ description: "The branch checked out; absent when HEAD is detached or there is no commit yet." })),
		head: Type.Optional(Type.String({ description: "The commit checked out; absent in a repository without commits." })),
		detached: Type.Boolean(),
		operation: Type.Optional(
			Type.Enum(["merge", "rebase", "cherry-pick", "revert"], { description: "An operation stopped half-way (conflicts are marked `conflicted`)." }),
		),
	},
	{ title: "RepositoryState" },
);

export const ChangedFileSchema = Type.Object(
	{
		path: Type.String({ description: "Relative to the session's working directory, `/`-separated (for a rename, the new path)." }),
		oldPath: Type.Optional(Type.String({ description: "A rename's old path." })),
		status: Type.Enum(CHANGE_STATUSES),
		added: Type.Integer({ minimum: 0, description: "Lines added (0 for a binary file)." }),
		removed: Type.Integer({ minimum: 0, description: "Lines removed (0 for a binary file)." }),
		binary: Type.Boolean(),
		conflicted: Type.Optional(Type.Literal(true, { description: "Unmerged: a merge, rebase or cherry-pick stopped on it." })),
		token: Type.String({
			description: "What the file holds now (a content hash, `absent`, ...): give it back to changes_revert, which refuses a file changed since.",
		}),
		note: Type.Optional(Type.String({ description: "What could not be told (counts of a file too large to read, a base not kept)." })),
	},
	{ title: "ChangedFile" },
);
export type ChangedFile = Static<typeof ChangedFileSchema>;

export const ChangesListSchema = Type.Object(
	{
		cwd: Type.String({ description: "The session's working directory: the root every path is relative to." }),
		base: ChangesBaseSchema,
		repository: Type.Optional(RepositoryStateSchema),
		files: Type.Array(ChangedFileSchema, { maxItems: MAX_CHANGED_FILES }),
		total: Type.Integer({ minimum: 0, description: "How many files changed (more than `files` holds when `truncated`)." }),
		truncated: Type.Boolean(),
		notes: Type.Array(Type.String(), { description: "What the answer leaves out or could not tell (git missing, a lost base, ...)." }),
	},
	{ title: "ChangesList" },
);
export type ChangesList = Static<typeof ChangesListSchema>;

export const FileDiffSchema = Type.Object(
	{
		path: Type.String(),
		base: ChangesBaseSchema,
		status: Type.Enum(CHANGE_STATUSES),
		diff: Type.String({ description: "A unified diff (empty for a binary file, or when the base was not kept)." }),
		binary: Type.Boolean(),
		truncated: Type.Boolean({ description: `The diff was cut at ${MAX_DIFF_BYTES / 1024} KiB (at a line's end).` }),
		note: Type.Optional(Type.String()),
	},
	{ title: "FileDiff" },
);
export type FileDiff = Static<typeof FileDiffSchema>;

export const REVERT_OUTCOMES = ["restored", "trashed", "refused"] as const;

export const RevertedFileSchema = Type.Object(
	{
		path: Type.String(),
		outcome: Type.Enum(REVERT_OUTCOMES, {
			description:
				"`restored`: the file holds the base's content again (a deleted one is back); `trashed`: a file the base does not " +
				"have was moved to the trash folder (never deleted); `refused`: nothing was done to it, `reason` says why.",
		}),
		trashedTo: Type.Optional(Type.String({ description: "Where a trashed file now is (under the agent directory)." })),
		reason: Type.Optional(Type.String()),
	},
	{ title: "RevertedFile" },
);
export type RevertedFile = Static<typeof RevertedFileSchema>;
