/** Words the label of a key writes in capitals. */
const ACRONYMS: Record<string, string> = { api: "API", url: "URL", id: "ID", mcp: "MCP" };

/**
 * What a key is called on the page: its last part in words ("memory.remoteApiToken": "Remote API token",
 * "retry.baseDelayMs": "Base delay (ms)"); its category is the section it is listed in, and the key itself
 * shows beside the label, for the file.
 */
export function settingLabel(key: string): string {
	const name = key.slice(key.lastIndexOf(".") + 1);
	const words = name.replace(/Ms$/, "").split(/(?=[A-Z])/).map((w) => ACRONYMS[w.toLowerCase()] ?? w.toLowerCase());
	const text = words.join(" ");
	return `${text.charAt(0).toUpperCase()}${text.slice(1)}${name.endsWith("Ms") ? " (ms)" : ""}`;
}
