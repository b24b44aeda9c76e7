/**
 * A file's language for highlighting, from its name: a small table of extensions and of whole names that have
 * none (Makefile, Dockerfile). Names are the common highlighters' (highlight.js, Shiki, Prism), so the page can
 * pass them on as they are; anything else is "plaintext".
 */

const BY_EXTENSION: Record<string, string> = {
	ts: "typescript", tsx: "tsx", mts: "typescript", cts: "typescript",
	js: "javascript", jsx: "jsx", mjs: "javascript", cjs: "javascript",
	json: "json", jsonc: "jsonc", json5: "json5", jsonl: "json",
	md: "markdown", markdown: "markdown", mdx: "mdx",
	html: "html", htm: "html", xml: "xml", svg: "xml", vue: "vue", svelte: "svelte",
	css: "css", scss: "scss", sass: "sass", less: "less",
	py: "python", pyi: "python", rb: "ruby", php: "php", pl: "perl", lua: "lua", r: "r",
	rs: "rust", go: "go", c: "c", h: "c", cc: "cpp", cpp: "cpp", cxx: "cpp", hpp: "cpp", hh: "cpp",
	cs: "csharp", java: "java", kt: "kotlin", kts: "kotlin", scala: "scala", swift: "swift", m: "objective-c",
	dart: "dart", ex: "elixir", exs: "elixir", erl: "erlang", hs: "haskell", ml: "ocaml", clj: "clojure", zig: "zig",
	sh: "bash", bash: "bash", zsh: "bash", fish: "fish", ps1: "powershell",
	sql: "sql", graphql: "graphql", gql: "graphql", proto: "protobuf",
	yaml: "yaml", yml: "yaml", toml: "toml", ini: "ini", cfg: "ini", conf: "ini", env: "dotenv",
	tex: "latex", rst: "rst", adoc: "asciidoc", csv: "csv", tsv: "tsv", diff: "diff", patch: "diff",
	tf: "hcl", hcl: "hcl", nix: "nix", dockerfile: "dockerfile", txt: "plaintext", log: "plaintext",
};

const BY_NAME: Record<string, string> = {
	makefile: "makefile", gnumakefile: "makefile", dockerfile: "dockerfile", containerfile: "dockerfile",
	gemfile: "ruby", rakefile: "ruby", jenkinsfile: "groovy", "cmakelists.txt": "cmake",
	".gitignore": "gitignore", ".gitattributes": "gitattributes", ".dockerignore": "gitignore", ".npmignore": "gitignore",
	".env": "dotenv", ".bashrc": "bash", ".zshrc": "bash", ".profile": "bash", ".editorconfig": "ini",
};

/** The language of a file named `name` (its last path part), "plaintext" when the table has none. */
export function languageOf(name: string): string {
	const lower = name.toLowerCase();
	const whole = BY_NAME[lower];
	if (whole) return whole;
	if (lower.startsWith(".env.")) return "dotenv";
	const dot = lower.lastIndexOf(".");
	if (dot <= 0) return "plaintext";
	return BY_EXTENSION[lower.slice(dot + 1)] ?? "plaintext";
}
