/**
 * The frontmatter of agent and persona files: a block between `---` lines at the top, holding `key: value`
 * lines. Values are strings, numbers, or lists (`[a, b]`, or `- item` lines under the key). A small subset of
 * YAML, enough for flat definitions, and strict: anything else is an error naming the line.
 */

export type FrontmatterValue = string | number | string[];

export interface ParsedMarkdown {
	fields: Map<string, FrontmatterValue>;
	/** The text after the frontmatter, trimmed. */
	body: string;
}

const KEY_LINE = /^([A-Za-z][A-Za-z0-9_]*):(?:\s+(.*))?$/;
const LIST_ITEM = /^\s+-\s+(.*)$/;

/** Parses a file's frontmatter and body; throws an Error naming what is wrong. */
export function parseFrontmatter(text: string): ParsedMarkdown {
	const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
	if (lines[0]?.trim() !== "---") throw new Error("it does not start with a `---` frontmatter line");
	const end = lines.findIndex((line, index) => index > 0 && line.trim() === "---");
	if (end < 0) throw new Error("its frontmatter has no closing `---` line");
	const fields = new Map<string, FrontmatterValue>();
	let listKey: string | undefined;
	for (let index = 1; index < end; index++) {
		const line = lines[index]!;
		if (line.trim() === "" || line.trim().startsWith("#")) continue;
		const item = LIST_ITEM.exec(line);
		if (item && listKey !== undefined) {
			(fields.get(listKey) as string[]).push(unquote(item[1]!.trim()));
			continue;
		}
		const match = KEY_LINE.exec(line);
		if (!match) throw new Error(`frontmatter line ${index + 1} is not \`key: value\`: ${JSON.stringify(line.slice(0, 60))}`);
		const key = match[1]!;
		if (fields.has(key)) throw new Error(`frontmatter key ${key} appears twice`);
		const raw = (match[2] ?? "").trim();
		listKey = undefined;
		if (raw === "") {
			fields.set(key, []);
			listKey = key;
		} else if (raw.startsWith("[")) {
			if (!raw.endsWith("]")) throw new Error(`frontmatter key ${key}: a list must end with ]`);
			const inner = raw.slice(1, -1).trim();
			fields.set(key, inner === "" ? [] : inner.split(",").map((part) => unquote(part.trim())));
		} else if (/^-?\d+(\.\d+)?$/.test(raw)) {
			fields.set(key, Number(raw));
		} else {
			fields.set(key, unquote(raw));
		}
	}
	return { fields, body: lines.slice(end + 1).join("\n").trim() };
}

function unquote(value: string): string {
	if (value.length >= 2 && ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'")))) {
		return value.slice(1, -1);
	}
	return value;
}
