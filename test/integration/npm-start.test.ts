/** `npm start` is the README's way to run the service: a signal to npm (as a service manager sends) must stop it. */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { connect } from "node:net";
import { test } from "node:test";
import { REPO_ROOT, tempDir } from "../support/skiff-process.js";

/** Whether something accepts connections on the port now. */
function listening(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const socket = connect(port, "127.0.0.1");
		socket.once("connect", () => (socket.destroy(), resolve(true)));
		socket.once("error", () => resolve(false));
	});
}

test("SIGTERM to `npm start` stops the service (the listener does not outlive npm)", async () => {
	const npm = spawn("npm", ["start", "--silent", "--", "--listen", "127.0.0.1:0"], {
		cwd: REPO_ROOT,
		env: { ...process.env, SKIFF_AGENT_DIR: tempDir() },
		stdio: ["ignore", "pipe", "pipe"],
	});
	let output = "";
	npm.stdout!.on("data", (d) => (output += d));
	const exited = new Promise<number | null>((resolve) => npm.on("exit", (code) => resolve(code)));
	const port = await new Promise<number>((resolve, reject) => {
		const check = () => {
			const match = /^Ready\b/m.test(output) && /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
			if (match) resolve(Number(match[1]));
		};
		npm.stdout!.on("data", check);
		npm.once("exit", () => reject(new Error(`npm start exited early:\n${output}`)));
	});
	assert.equal(await listening(port), true);
	npm.kill("SIGTERM");
	const deadline = new Promise<string>((resolve) => setTimeout(() => resolve("still running 10 s after SIGTERM"), 10_000).unref());
	assert.equal(await Promise.race([exited, deadline]), 0, "npm start exits cleanly");
	assert.equal(await listening(port), false, "nothing listens after npm start is stopped");
});
