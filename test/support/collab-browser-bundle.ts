/**
 * The page's collaboration modules (web/src/collab/) bundled into one script for a browser test, with Vite's
 * build API, until the guest view imports them into the page itself. The script puts them on
 * `globalThis.skiffCollab`.
 */
import { fileURLToPath } from "node:url";
import { build } from "vite";

const ENTRY = fileURLToPath(new URL("./collab-browser-entry.ts", import.meta.url));

export async function collabBrowserBundle(): Promise<string> {
	const result = await build({
		configFile: false,
		logLevel: "warn",
		build: {
			write: false,
			minify: false,
			target: "es2022",
			lib: { entry: ENTRY, formats: ["iife"], name: "skiffCollabBundle", fileName: () => "collab.js" },
		},
	});
	const outputs = Array.isArray(result) ? result : [result];
	for (const output of outputs) {
		if (!("output" in output)) continue;
		const chunk = output.output.find((item) => item.type === "chunk");
		if (chunk && "code" in chunk) return chunk.code;
	}
	throw new Error("the collaboration bundle has no code");
}
