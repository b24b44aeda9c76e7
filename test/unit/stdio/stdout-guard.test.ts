/** In --mode rpc standard output carries protocol lines only: any other write to it goes to standard error. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";

const GUARD = new URL("../../../src/stdio/stdout-guard.ts", import.meta.url).href;

test("console.log and stray stdout writes go to stderr; protocol lines go to stdout", () => {
	const script = `
		const { takeOverStdout } = await import(${JSON.stringify(GUARD)});
		const output = takeOverStdout();
		console.log("stray log");
		process.stdout.write("stray write\\n");
		output.write('{"type":"response"}\\n', () => output.write("", () => process.exit(0)));
	`;
	const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8" });
	assert.equal(child.status, 0, child.stderr);
	assert.equal(child.stdout, '{"type":"response"}\n');
	assert.match(child.stderr, /stray log\nstray write\n/);
});
