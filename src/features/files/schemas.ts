/** The project files' schemas: what `files_list` and `files_read` take and answer, and the limits they enforce. */
import { type Static, Type } from "typebox";

/** Longer paths are refused before they reach the file system (Linux's own limit is 4,096 bytes). */
export const MAX_PATH_CHARS = 4096;
/** A page cursor (`after`): the last entry's name (at most 255 bytes on Linux, a few more characters elsewhere) and its kind. */
export const MAX_CURSOR_CHARS = 1024;
/** Entries per page when the client names no limit, and the most it may ask for. */
export const DEFAULT_PAGE = 500;
export const MAX_PAGE = 1000;
/** The most names read from one folder: past it the listing says it is incomplete rather than read on. */
export const MAX_DIRECTORY_ENTRIES = 100_000;
/** The most text sent for one file: past it, the head and `truncated`. */
export const MAX_TEXT_BYTES = 1024 * 1024;
/** The largest image sent as data (the size an attachment may have): larger ones are "binary" with their size. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

const RelativePath = (description: string) => Type.String({ maxLength: MAX_PATH_CHARS, description });

export const FILE_KINDS = ["file", "directory", "symlink", "other"] as const;
export const FileKindSchema = Type.Enum(FILE_KINDS, {
	description: "`file`, `directory`, `symlink` (not followed in the listing: see `target`) or `other` (a FIFO, a socket, a device: never read).",
});
export type FileKind = Static<typeof FileKindSchema>;

export const LINK_TARGETS = ["file", "directory", "other", "missing", "outside"] as const;
export const LinkTargetSchema = Type.Enum(LINK_TARGETS, {
	description:
		"Where a symbolic link leads: a `file` or `directory` inside the working directory (which files_read and files_list follow), " +
		"`other`, `missing` (broken), or `outside` the working directory or into `.git` (refused).",
});
export type LinkTarget = Static<typeof LinkTargetSchema>;

export const FileEntrySchema = Type.Object(
	{
		name: Type.String({ description: "The entry's name." }),
		path: Type.String({ description: "Its path from the working directory, folders separated by `/` (what files_read and files_list take)." }),
		kind: FileKindSchema,
		size: Type.Optional(Type.Integer({ minimum: 0, description: "Bytes: of a file, or of the file a link leads to." })),
		target: Type.Optional(LinkTargetSchema),
		unnamable: Type.Optional(
			Type.Literal(true, {
				description:
					"The name on disk is not UTF-8 (or holds a backslash): `name` and `path` spell it with U+FFFD (or as it is), a spelling " +
					"files_read and files_list cannot open, so the entry is listed only.",
			}),
		),
		ignored: Type.Optional(
			Type.Boolean({ description: "Whether git ignores it (`.gitignore` and the like). Absent when git could not say: see `gitNote`; and on `.git` itself." }),
		),
	},
	{ title: "FileEntry" },
);
export type FileEntry = Static<typeof FileEntrySchema>;

export const FilesListParamsSchema = Type.Object(
	{
		path: Type.Optional(RelativePath("The folder, relative to the session's working directory (default: the working directory itself).")),
		offset: Type.Optional(
			Type.Integer({
				minimum: 0,
				description:
					"How many entries of the sorted listing to skip (default 0): `nextOffset` of the previous page. Entries added or removed " +
					"before it since shift the pages (one skipped or shown twice): page with `after` instead.",
			}),
		),
		after: Type.Optional(
			Type.String({
				minLength: 1,
				maxLength: MAX_CURSOR_CHARS,
				description:
					"`nextAfter` of the previous page, as it came: the page starts with the first entry that sorts after that page's last, " +
					"so entries added or removed meanwhile never shift the pages as they do with `offset` (give one or the other).",
			}),
		),
		limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, description: `Entries in the page (default ${DEFAULT_PAGE}, at most ${MAX_PAGE}).` })),
	},
	{ additionalProperties: false },
);

export const FilesListResultSchema = Type.Object(
	{
		path: Type.String({ description: "The folder listed, normalised (`\"\"` for the working directory)." }),
		entries: Type.Array(FileEntrySchema, { description: "This page: folders first, then by name (ignoring case)." }),
		offset: Type.Integer({ minimum: 0, description: "Where this page starts in the sorted listing (the `offset` asked for, or where `after` led)." }),
		total: Type.Integer({ minimum: 0, description: "Entries in the folder (as far as `complete` says)." }),
		nextOffset: Type.Optional(Type.Integer({ minimum: 0, description: "The `offset` of the next page; absent on the last." })),
		nextAfter: Type.Optional(Type.String({ description: "The `after` of the next page (a cursor: the page's last entry); absent on the last." })),
		complete: Type.Boolean({ description: "False when the folder has more entries than are read from one folder (100,000): the listing sorts those read." }),
		gitNote: Type.Optional(Type.String({ description: "Why entries carry no `ignored` mark (not a git repository, git not installed, git too slow)." })),
	},
	{ title: "FilesListResult" },
);
export type FilesListResult = Static<typeof FilesListResultSchema>;

export const FilesReadParamsSchema = Type.Object(
	{ path: RelativePath("The file, relative to the session's working directory.") },
	{ additionalProperties: false },
);

const FileTextSchema = Type.Object(
	{
		kind: Type.Literal("text"),
		path: Type.String({ description: "The path read, normalised (as asked: a link keeps its own name)." }),
		size: Type.Integer({ minimum: 0, description: "The file's size in bytes." }),
		language: Type.String({ description: "For highlighting, from the file's name (`typescript`, `markdown`, `xml` for SVG, ...; `plaintext` when unknown)." }),
		encoding: Type.Enum(["utf-8", "invalid-utf-8"], {
			description: "`invalid-utf-8`: the file is not UTF-8 text; bytes that did not decode show as U+FFFD.",
		}),
		truncated: Type.Boolean({ description: `True when the file is larger than ${MAX_TEXT_BYTES / (1024 * 1024)} MiB: \`text\` is its head.` }),
		redacted: Type.Boolean({ description: "True when secrets (API keys, tokens, private keys) in the text were masked as `[REDACTED]`." }),
		text: Type.String({ description: "The text (its head when `truncated`, cut between characters)." }),
	},
	{ title: "FileText" },
);

const FileImageSchema = Type.Object(
	{
		kind: Type.Literal("image"),
		path: Type.String({ description: "The path read, normalised." }),
		size: Type.Integer({ minimum: 0, description: "The file's size in bytes." }),
		mimeType: Type.Enum(["image/png", "image/jpeg", "image/gif", "image/webp"], { description: "From the file's first bytes, not its name." }),
		data: Type.String({ description: `The file, base64 (images up to ${MAX_IMAGE_BYTES / (1024 * 1024)} MiB).` }),
	},
	{ title: "FileImage" },
);

const FileBinarySchema = Type.Object(
	{
		kind: Type.Literal("binary"),
		path: Type.String({ description: "The path read, normalised." }),
		size: Type.Integer({ minimum: 0, description: "Shown as \"binary, N bytes\"." }),
		mimeType: Type.Optional(Type.String({ description: "An image's type, when it is too large to send." })),
		reason: Type.Optional(Type.String({ description: "Why an image is not sent." })),
	},
	{ title: "FileBinary" },
);

export const FilesReadResultSchema = Type.Union([FileTextSchema, FileImageSchema, FileBinarySchema], {
	title: "FilesReadResult",
	description: "By `kind`: `text` (with its language), `image` (base64 data) or `binary` (its size only).",
});
export type FilesReadResult = Static<typeof FilesReadResultSchema>;
