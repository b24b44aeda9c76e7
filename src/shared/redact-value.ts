/**
 * Secret redaction over parsed JSON (a session entry, an export's embedded session): every string, keys
 * excepted, passes through redactSecrets. Image data (`{"type": "image", "data": "<base64>"}`) is not text: a
 * key shape found by chance inside base64 would only break the picture, so it is left as it is.
 */
import { redactSecrets } from "./redact.js";

/**
 * `value` with every string redacted (objects and arrays are changed in place: pass what was just parsed), and
 * whether anything changed, so a caller can keep the original bytes when nothing did. Walks with its own
 * stack: a deeply nested value cannot overflow the call stack.
 */
export function redactValue(value: unknown): { value: unknown; changed: boolean } {
	if (typeof value === "string") {
		const redacted = redactSecrets(value);
		return { value: redacted, changed: redacted !== value };
	}
	let changed = false;
	const stack: unknown[] = [value];
	while (stack.length > 0) {
		const current = stack.pop();
		if (typeof current !== "object" || current === null) continue;
		const record = current as Record<string, unknown>;
		const image = !Array.isArray(current) && record.type === "image";
		for (const key of Object.keys(record)) {
			const item = record[key];
			if (typeof item === "string") {
				if (image && key === "data") continue;
				const redacted = redactSecrets(item);
				if (redacted !== item) {
					record[key] = redacted;
					changed = true;
				}
			} else if (typeof item === "object" && item !== null) {
				stack.push(item);
			}
		}
	}
	return { value, changed };
}

/**
 * One line of a JSON Lines file with its secrets redacted: parsed and walked when it is JSON (unchanged bytes
 * when nothing was found), else redacted as text.
 */
export function redactJsonLine(line: string): string {
	let parsed: unknown;
	try {
		parsed = JSON.parse(line);
	} catch {
		return redactSecrets(line);
	}
	const { value, changed } = redactValue(parsed);
	return changed ? JSON.stringify(value) : line;
}
