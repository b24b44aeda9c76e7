/** The settings panel's JSON editor of an object key (mcpServers): what it takes, checked before anything is sent. */
import { REDACTED } from "../../../src/shared/redact.js";

/**
 * Reads the JSON typed for an object key: an object, or why not. A value holding the mask of a secret is refused
 * here as the service would: written back, the mask would replace the file's secret.
 */
export function readObject(text: string, key: string): { value: Record<string, unknown> } | { problem: string } {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch (error) {
		return { problem: `\`${key}\` is not valid JSON: ${(error as Error).message}.` };
	}
	if (!value || typeof value !== "object" || Array.isArray(value)) return { problem: `\`${key}\` must be a JSON object ({…}).` };
	if (text.includes(REDACTED)) return { problem: `\`${key}\` holds ${REDACTED}, a masked secret: write a $VAR reference in its place.` };
	return { value: value as Record<string, unknown> };
}
