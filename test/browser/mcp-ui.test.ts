/**
 * MCP servers on the page, in Chromium against a real skiff that starts the test suite's own stdio MCP server
 * (test/support/mcp/stdio-server.mjs) from its settings, at desktop and phone sizes: the servers view in
 * Settings (state, transport, tools, a failed server's error, a disabled one, an untrusted project's skipped), the switch (mcp_set_enabled,
 * written to settings.json) and Restart (mcp_restart), updated live; the JSON editor of `mcpServers` with its
 * checks under the field and the secrets masked (a literal never reaches the page); a tool card naming the server.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { openPage, runPrompt, settled, showPanel, useChatService, VIEWPORTS } from "../support/browser.js";
import { REPO_ROOT, tempDir } from "../support/skiff-process.js";

const SERVER = join(REPO_ROOT, "test", "support", "mcp", "stdio-server.mjs");
const SECRET = "literal-mcp-secret-4f4f4f4f";
const agentDir = tempDir();
const settingsFile = join(agentDir, "settings.json");
writeFileSync(
	settingsFile,
	JSON.stringify({
		mcpServers: {
			test: { command: process.execPath, args: [SERVER], env: { API_KEY: SECRET } },
			off: { command: process.execPath, args: [SERVER], enabled: false },
			gone: { command: "/nonexistent/mcp-server" },
		},
	}),
);
// The service's folder is a project (not trusted) whose own settings configure a server: listed, never started.
const cwd = tempDir();
mkdirSync(join(cwd, ".skiff"));
writeFileSync(join(cwd, ".skiff", "settings.json"), JSON.stringify({ mcpServers: { local: { command: process.execPath, args: [SERVER] } } }));
const chat = useChatService(() => ({ agentDir, cwd, env: { MCP_UI_KEY: SECRET } }));

const server = (name: string) => `.mcp-server[data-server="${name}"]`;
const servers = (page: Page) => page.evaluate(() => Object.fromEntries([...document.querySelectorAll(".mcp-server")].map((el) => [el.getAttribute("data-server"), el.getAttribute("data-state")])));
const readSettings = () => JSON.parse(readFileSync(settingsFile, "utf8")).mcpServers as Record<string, Record<string, unknown>>;

for (const viewport of VIEWPORTS) {
	describe(`MCP servers at ${viewport.name} size`, () => {
		let page: Page;
		before(async () => {
			page = await openPage(chat.browser, chat.service.skiff.url, viewport);
			await showPanel(page, viewport, "settings");
		});
		after(() => page?.context().close());

		test("the servers view: state, transport, tools, a failed server's error, a disabled one and an untrusted project's skipped", async () => {
			await page.waitForSelector(`${server("test")}[data-state="ready"]`);
			await page.waitForSelector(`${server("gone")}[data-state="failed"] .error-text:has-text('command not found')`);
			assert.equal(await page.getAttribute(`${server("off")}`, "data-state"), "disabled");
			assert.equal(await page.isChecked(`${server("off")} input[role=switch]`), false);
			assert.equal(await page.isDisabled(`${server("off")} button:has-text('Restart')`), true);
			assert.match(await page.textContent(`${server("test")} .setting-meta`) ?? "", /stdio · skiff-test-server[^·]*· global · pid \d+/);
			await page.waitForSelector(`${server("local")}[data-state="skipped"]:has-text('the project is not trusted')`);
			assert.equal(await page.locator(`${server("local")} input, ${server("local")} button`).count(), 0, "nothing to switch or restart");
			await page.click(`${server("test")} summary:has-text('tools')`);
			await page.waitForSelector(`${server("test")} .mcp-list li:has(code:text-is("echo")):has-text('Echoes its text.')`);
			// Named for a screen reader: the switch and the button say which server.
			await page.getByRole("switch", { name: "test enabled" }).waitFor();
			await page.getByRole("button", { name: "Restart test" }).waitFor();
			// Nothing sideways on a phone.
			await settled(page);
			const overflow = await page.evaluate(() => [...document.querySelectorAll(".mcp-server")].some((el) => el.scrollWidth > el.clientWidth + 1));
			assert.equal(overflow, false);
		});

		test("disable and enable write the settings file; Restart starts it again, live", async () => {
			const env = readSettings().test!.env;
			await page.getByRole("switch", { name: "test enabled" }).click();
			await page.waitForSelector(`${server("test")}[data-state="disabled"]`);
			assert.equal(readSettings().test!.enabled, false);
			assert.deepEqual(readSettings().test!.env, env, "the file keeps its values, its secret among them");
			await page.getByRole("switch", { name: "test enabled" }).click();
			// A checkbox is checked as it is clicked, before the page marks the row busy: the row's state leaving
			// "disabled" is the service's answer, given once the file is written.
			await page.waitForFunction(() => document.querySelector('.mcp-server[data-server="test"]:not([data-state="disabled"]) input[role=switch]:checked:not(:disabled)'));
			assert.equal(readSettings().test!.enabled, true);
			const pid = await page.textContent(`${server("test")} .setting-meta`);
			await page.getByRole("button", { name: "Restart test" }).click();
			await page.waitForFunction(
				(before) => {
					const el = document.querySelector('.mcp-server[data-server="test"]');
					return el?.getAttribute("data-state") === "ready" && el.getAttribute("aria-busy") === "false" && el.querySelector(".setting-meta")?.textContent !== before;
				},
				pid,
			);
		});

		test("the mcpServers JSON editor checks as it is typed, masks secrets and adds a server", async () => {
			const field = "#setting-mcpServers";
			await page.locator(field).scrollIntoViewIfNeeded();
			const shown = await page.inputValue(field);
			assert.ok(shown.includes("[REDACTED]") && !shown.includes(SECRET), shown);
			await page.fill(field, "{ not json");
			await page.waitForSelector(`.setting[data-key="mcpServers"] .error-text:has-text('is not valid JSON')`);
			assert.equal(await page.getAttribute(field, "aria-invalid"), "true");
			await page.fill(field, "[1, 2]");
			await page.waitForSelector(`.setting[data-key="mcpServers"] .error-text:has-text('must be a JSON object')`);
			// The masked value written back would replace the file's secret with the mask: refused before it is sent.
			await page.fill(field, shown);
			await page.waitForSelector(`.setting[data-key="mcpServers"] .error-text:has-text('a masked secret')`);
			await page.locator(field).blur();
			assert.equal(await page.locator(".settings-pending").count(), 0, "nothing was sent");
			// A reference in the mask's place; a new server with a literal secret, masked once saved.
			const name = `extra-${viewport.name}`;
			const value = JSON.parse(shown.replaceAll('"[REDACTED]"', '"$MCP_UI_KEY"'));
			value[name] = { command: process.execPath, args: [SERVER], env: { API_KEY: SECRET } };
			await page.fill(field, JSON.stringify(value, null, 2));
			await page.press(field, "Control+Enter");
			await page.waitForSelector(`.setting[data-key="mcpServers"].pending`);
			await page.click(".settings-pending button:has-text('Apply')");
			await page.waitForSelector(server(name));
			assert.deepEqual(readSettings()[name], value[name]);
			assert.equal((readSettings().test!.env as any).API_KEY, "$MCP_UI_KEY");
			await page.waitForFunction((secret) => !(document.querySelector("#setting-mcpServers") as HTMLTextAreaElement).value.includes(secret), SECRET);
			assert.ok((await page.inputValue(field)).includes("[REDACTED]"));
			assert.ok(!(await page.content()).includes(SECRET));
		});

		test("a tool card of an MCP tool names its server and the tool's own name", async () => {
			await page.waitForSelector(`${server("test")}[data-state="ready"]`);
			if (viewport.phone) await page.click("button.panel-close");
			await runPrompt(page, `CALL mcp__test__echo {"text":"from the page ${viewport.name}"}\nAFTER_TOOL done.`);
			const card = page.locator(".tool", { hasText: `echo: from the page ${viewport.name}` });
			await card.waitFor();
			assert.equal(await card.locator(".tool-head .tag").textContent(), "test");
			assert.equal(await card.locator(".tool-name").textContent(), "echo");
			await showPanel(page, viewport, "settings");
		});
	});
}

describe("with no MCP server", () => {
	test("emptying the mcpServers field (and the project's file) removes them all; the empty state says how to configure one", async () => {
		const page = await openPage(chat.browser, chat.service.skiff.url, VIEWPORTS[0]);
		try {
			await showPanel(page, VIEWPORTS[0], "settings");
			await page.waitForSelector(server("test"));
			// The project's file edited by hand: the list reads it again once the settings change.
			writeFileSync(join(cwd, ".skiff", "settings.json"), JSON.stringify({ mcpServers: {} }));
			await page.fill("#setting-mcpServers", "");
			await page.locator("#setting-mcpServers").blur();
			await page.waitForSelector(`.setting[data-key="mcpServers"].pending`);
			await page.click(".settings-pending button:has-text('Apply')");
			await page.waitForSelector(".empty-state:has-text('No MCP server configured')");
			assert.match((await page.textContent(".panel.settings section[aria-label='MCP servers']")) ?? "", /docs\/mcp\.md/);
			assert.equal(readSettings(), undefined);
		} finally {
			await page.context().close();
		}
	});
});
