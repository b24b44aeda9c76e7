/** How the service says it was started (src/shared/start-command.ts), for the page's setup help. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startCommand } from "../../../src/shared/start-command.js";

test("npm scripts are named as npm runs them", () => {
	assert.equal(startCommand({ npm_lifecycle_event: "start" }, ["node", "/repo/bin/skiff"], "/repo"), "npm start");
	assert.equal(startCommand({ npm_lifecycle_event: "dev" }, ["node", "/repo/bin/skiff"], "/repo"), "npm run dev");
});

test("a script found on the PATH is its name; another is node with its path, relative when under the folder", () => {
	assert.equal(startCommand({ PATH: "/usr/bin:/usr/local/bin" }, ["node", "/usr/local/bin/skiff"], "/home/me"), "skiff");
	assert.equal(startCommand({ PATH: "/usr/bin" }, ["node", "/repo/bin/skiff"], "/repo"), "node bin/skiff");
	assert.equal(startCommand({ PATH: "/usr/bin" }, ["node", "/repo/bin/skiff"], "/elsewhere"), "node /repo/bin/skiff");
	assert.equal(startCommand({}, ["node"], "/repo"), "skiff");
});
