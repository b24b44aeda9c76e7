/**
 * Terminal output as text to read: the escape sequences a terminal interprets (colours, cursor moves, window
 * titles, character sets) are dropped, as they would otherwise show as `[31m` beside a box for the escape character. Each
 * pattern is linear: no quantifier nests, and an unterminated title's scan stops at the next escape (its
 * `ESC ]` alone is dropped).
 */
const ESCAPES = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[()#][0-9A-Za-z]|[@-Z\\-_])/g;

export function terminalText(text: string): string {
	return text.includes("\x1b") ? text.replace(ESCAPES, "") : text;
}
