/**
 * Builds the chat page into one self-contained HTML file (dist/web/index.html) that the listener embeds.
 * `npm run dev:web` serves it with hot reload and proxies /ws and /rpc to the listener at SKIFF_LISTEN.
 */
import { defineConfig } from "vite";
import { viteSingleFile } from "vite-plugin-singlefile";
import { markedLexerOnly } from "./marked-lexer-only.js";

const listener = process.env.SKIFF_LISTEN ?? "http://127.0.0.1:8787";

export default defineConfig({
	root: import.meta.dirname,
	base: "./",
	plugins: [markedLexerOnly(), viteSingleFile({ removeViteModuleLoader: true })],
	oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
	resolve: { alias: { react: "preact/compat" } },
	build: {
		outDir: "../dist/web",
		emptyOutDir: true,
		sourcemap: false,
		target: "es2022",
		reportCompressedSize: false,
	},
	server: {
		proxy: {
			// The listener admits a browser only from its own origin, so the proxy presents the listener's
			// origin: the dev server stands in for the page the listener would have served.
			"/ws": {
				target: listener.replace(/^http/, "ws"),
				ws: true,
				changeOrigin: true,
				configure: (proxy) => proxy.on("proxyReqWs", (request) => request.setHeader("origin", new URL(listener).origin)),
			},
			"/rpc": {
				target: listener,
				changeOrigin: true,
				configure: (proxy) => proxy.on("proxyReq", (request) => request.setHeader("origin", new URL(listener).origin)),
			},
		},
	},
});
