/**
 * The one rule for a session's title, used by the header, the session list and the switcher alike: its name,
 * else its first message (first line), else "New session".
 */

export const UNTITLED = "New session";

export function sessionTitle(name: string | undefined, firstMessage: string | undefined): string {
	const named = name?.trim();
	if (named) return named;
	const first = firstMessage?.trim().split("\n")[0]?.replace(/\s+/g, " ").trim();
	return first || UNTITLED;
}

/** A project folder as a list shows it: its last two parts ("…/projects/skiff"), the whole path in a tooltip. */
export function shortFolder(cwd: string): string {
	const parts = cwd.split(/[/\\]/).filter(Boolean);
	return parts.length > 2 ? `…/${parts.slice(-2).join("/")}` : cwd;
}

/** A project folder's own name (its last part), as the header shows it. */
export function folderName(cwd: string): string {
	return cwd.split(/[/\\]/).filter(Boolean).pop() ?? cwd;
}

/** When a session was last active: its own creation time counts too, so a fork sorts by when it was made. */
export function activeTime(row: { created: string; modified: string }): number {
	return Math.max(Date.parse(row.created) || 0, Date.parse(row.modified) || 0);
}

/** A short, human time for a list: "just now", "5 min ago", "3 h ago", "yesterday", else the date. */
export function relativeTime(time: number, now = Date.now()): string {
	const minutes = Math.round((now - time) / 60_000);
	if (minutes < 1) return "just now";
	if (minutes < 60) return `${minutes} min ago`;
	const hours = Math.round(minutes / 60);
	if (hours < 24) return `${hours} h ago`;
	if (hours < 48) return "yesterday";
	const date = new Date(time);
	return date.toLocaleDateString(undefined, { month: "short", day: "numeric", ...(date.getFullYear() === new Date(now).getFullYear() ? {} : { year: "numeric" }) });
}
