/** MCP server settings: how a server is reached, `$VAR` references, plaintext refused, and secrets masked in every view. */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { mcpFeature } from "../../../../src/features/mcp/index.js";
import { SettingsCatalog } from "../../../../src/settings/catalog.js";
import { configWarnings, launchOf, maskSecrets, McpConfigError, redactServers, serverSpec, shownConfig } from "../../../../src/features/mcp/config.js";

const env = { PATH: "/usr/bin", HOME: "/home/u", OPENAI_API_KEY: "sk-skiffsownkey1234567890", DB_TOKEN: "db-secret-value", HOST_TOKEN: "tok-123456" };

test("a stdio server gets a small safe environment and its own, references resolved; skiff's credentials are not passed on", () => {
	const spec = serverSpec("db", "global", { command: "db-mcp", args: ["--x"], env: { TOKEN: "$DB_TOKEN", PLAIN: "v", BOTH: "a-${DB_TOKEN}-b" }, cwd: "sub" }, "/base");
	const launch = launchOf(spec, env);
	assert.equal(launch.kind, "stdio");
	if (launch.kind !== "stdio") return;
	assert.equal(launch.cwd, "/base/sub");
	assert.deepEqual(launch.env, { PATH: "/usr/bin", HOME: "/home/u", TOKEN: "db-secret-value", PLAIN: "v", BOTH: "a-db-secret-value-b" });
	assert.ok(launch.secrets.includes("db-secret-value"));
});

test("an unset reference, a missing command or url, and plaintext to another machine are errors naming the server, never a value", () => {
	const error = (config: object) => {
		try {
			launchOf(serverSpec("s1", "global", config, "/"), env);
		} catch (e) {
			assert.ok(e instanceof McpConfigError);
			return (e as Error).message;
		}
		return assert.fail("no error");
	};
	assert.equal(error({ command: "x", env: { A: "$NOPE" } }), "MCP server s1: env.A refers to $NOPE, which is not set in skiff's environment");
	assert.match(error({}), /^MCP server s1: needs a command \(stdio\) or a url/);
	assert.match(error({ url: "http://example.com/mcp" }), /refusing plaintext http:\/\/example.com: use https, or set allowInsecure/);
	assert.match(error({ url: "https://u:p@example.com/mcp" }), /must not hold credentials/);
	assert.match(error({ command: "x", url: "https://example.com" }), /both a command and a url/);
	const loopback = launchOf(serverSpec("s2", "global", { url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer ${HOST_TOKEN}" } }, "/"), env);
	assert.equal(loopback.kind === "http" && loopback.headers.Authorization, "Bearer tok-123456");
	assert.equal(maskSecrets("sent Bearer tok-123456 to it", loopback.secrets), "sent [REDACTED] to it");
	assert.equal(maskSecrets("the token tok-123456 alone", loopback.secrets), "the token [REDACTED] alone", "what a reference read is masked on its own too");
});

test("views show references as written and mask literal secrets, in env, headers, args and url", () => {
	const shown = shownConfig({
		command: "x",
		args: ["--key", "sk-abcdefghijklmnop1234"],
		env: { API_KEY: "literal", REF: "$DB_TOKEN", LOG_LEVEL: "debug" },
		headers: { Authorization: "Bearer ${HOST_TOKEN}", "X-Api-Key": "plain-secret", Cookie: "Bearer literal-thing" },
		url: "https://user:pw@example.com/mcp?token=abc",
	});
	assert.deepEqual(shown.env, { API_KEY: "[REDACTED]", REF: "$DB_TOKEN", LOG_LEVEL: "debug" });
	assert.deepEqual(shown.headers, { Authorization: "Bearer ${HOST_TOKEN}", "X-Api-Key": "[REDACTED]", Cookie: "[REDACTED]" });
	assert.deepEqual(shown.args, ["--key", "[REDACTED]"]);
	assert.equal(shown.url, "https://example.com/mcp?[REDACTED]");
	// A file that does not fit the schema is still shown without its secrets.
	assert.deepEqual(redactServers({ bad: { env: { TOKEN: 5, KEY: "v" }, headers: "x" } }), { bad: { env: { TOKEN: "[REDACTED]", KEY: "[REDACTED]" }, headers: "[REDACTED]" } });
});

test("start-up warns of a global server that cannot start as configured, naming it and never a value", () => {
	const dir = mkdtempSync(join(tmpdir(), "mcp-config-"));
	writeFileSync(
		join(dir, "settings.json"),
		JSON.stringify({ mcpServers: { ok: { command: "x" }, unset: { command: "x", env: { A: "$MCP_UNSET_VAR" } }, off: { url: "http://example.com", enabled: false } } }),
	);
	assert.deepEqual(configWarnings(dir, {}), ["settings: MCP server unset: env.A refers to $MCP_UNSET_VAR, which is not set in skiff's environment; it will fail to start"]);
});

test("a value of mcpServers that does not fit is refused naming the key, with its secrets masked in the message", () => {
	const catalog = new SettingsCatalog(mcpFeature.settings!);
	const definition = catalog.get("mcpServers")!;
	const problem = catalog.problem(definition, { db: { command: 5, env: { TOKEN: "literal-db-token" } } });
	assert.match(problem!, /^`mcpServers` must be an object of MCP servers by name/);
	assert.ok(!problem!.includes("literal-db-token"), problem);
	assert.equal(catalog.problem(definition, { db: { command: "x", env: { TOKEN: "$T" } } }), undefined);
});
