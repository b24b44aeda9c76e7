/**
 * Builds the chat page into one self-contained HTML file (dist/web/index.html) that the listener embeds.
 * `npm run dev:web` serves it with hot reload and proxies /ws and /rpc to the listener at SKIFF_LISTEN.
 */
import { defineConfig } from "vite";
import { viteSingleFile } from "vite-plugin-singlefile";
import { cssVariableNames } from "./css-variable-names.js";
import { markedLexerOnly } from "./marked-lexer-only.js";

const listener = process.env.SKIFF_LISTEN ?? "http://127.0.0.1:8787";

export default defineConfig({
	root: import.meta.dirname,
	base: "./",
	plugins: [markedLexerOnly(), viteSingleFile({ removeViteModuleLoader: true }), cssVariableNames()],
	// JSX compiles to preact's `h(type, props, ...children)` (the classic runtime) rather than the automatic
	// runtime's `jsx(type, {...props, children: [...]})`: the same vnodes (both extract `key` and a DOM
	// element's `ref` from the props), without a `children:[…]` per element: 10 KB less script, 1.1 KB gzipped.
	// The names are the build's own, so that they never meet a module's `h` or `Fragment`. Type checking keeps
	// the automatic runtime (web/tsconfig.json), which types JSX by the same preact namespace.
	oxc: { jsx: { runtime: "classic", pragma: "_h$", pragmaFrag: "_F$" }, jsxInject: 'import { h as _h$, Fragment as _F$ } from "preact"' },
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
