import assert from "node:assert/strict";
import { test } from "node:test";
import { parseCliArgs } from "../../../src/cli/args.js";
import { HELP_TEXT } from "../../../src/cli/help.js";

test("--help documents every flag and environment variable", () => {
	assert.equal(parseCliArgs(["--help"]).help, true);
	assert.equal(parseCliArgs(["-h"]).help, true);
	for (const flag of [
		"--listen", "--listen-token-file", "--listen-allow-insecure-remote", "--listen-advertised-origin", "--model",
		"--thinking", "--cwd", "--continue", "--resume", "--session", "--session-id", "--no-session", "--max-sessions",
		"--mode", "--provider", "SKIFF_AGENT_DIR", "SKIFF_WEB_DEV_DIR", "PI_CODING_AGENT_DIR",
	]) {
		assert.ok(HELP_TEXT.includes(flag), `help mentions ${flag}`);
	}
});
