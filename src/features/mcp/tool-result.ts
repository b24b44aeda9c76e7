/**
 * An MCP tool's result as the agent's: text parts and images pass; audio and embedded binary resources become a
 * line saying what was left out; structured content with no text becomes its JSON. The text is bounded as every
 * tool's output is (MAX_TOOL_OUTPUT_BYTES, cut with a note), and so are images. A result the server marks as an
 * error becomes a tool error carrying the server's own message.
 */
import { boundText, type FeatureToolContent, type FeatureToolOutput, MAX_TOOL_OUTPUT_BYTES } from "../../agent/feature-tool.js";
import type { CallResult } from "./connect.js";

/** Largest image passed on (its base64 text); a larger one is replaced by a note. */
export const MAX_IMAGE_CHARS = 8 * 1024 * 1024;
/** Most images of one result passed on. */
export const MAX_IMAGES = 4;

export class McpToolError extends Error {}

export function toToolOutput(result: CallResult, details: Record<string, unknown>): FeatureToolOutput {
	const texts: string[] = [];
	const images: FeatureToolContent[] = [];
	for (const part of Array.isArray(result.content) ? result.content : []) {
		const type = part.type;
		if (type === "text" && typeof part.text === "string") texts.push(part.text);
		else if (type === "image" && typeof part.data === "string" && typeof part.mimeType === "string") {
			if (images.length >= MAX_IMAGES) texts.push(`[image left out: more than ${MAX_IMAGES} images in one result]`);
			else if (part.data.length > MAX_IMAGE_CHARS) texts.push(`[image left out: ${part.data.length} characters of base64, over ${MAX_IMAGE_CHARS}]`);
			else images.push({ type: "image", data: part.data, mimeType: part.mimeType });
		} else if (type === "resource" && typeof part.resource === "object" && part.resource !== null) {
			const resource = part.resource as Record<string, unknown>;
			texts.push(typeof resource.text === "string" ? resource.text : `[resource ${String(resource.uri)} (${String(resource.mimeType ?? "binary")}) left out]`);
		} else if (type === "resource_link") texts.push(`[resource link: ${String(part.uri)}${part.name ? ` (${String(part.name)})` : ""}]`);
		else texts.push(`[${String(type)} content left out]`);
	}
	if (texts.length === 0 && images.length === 0 && result.structuredContent !== undefined) texts.push(JSON.stringify(result.structuredContent));
	const text = boundText(texts.join("\n"), MAX_TOOL_OUTPUT_BYTES);
	if (result.isError) throw new McpToolError(text || "the tool failed (the server gave no message)");
	const content: FeatureToolContent[] = [];
	if (text !== "" || images.length === 0) content.push({ type: "text", text: text === "" ? "(no output)" : text });
	content.push(...images);
	return { content, details };
}
