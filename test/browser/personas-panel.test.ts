/**
 * The Personas panel at both sizes: a persona created from the template, its definition refused with the
 * service's reason and then saved, a run that shows up as a job (opened in the Jobs panel) and adds a session
 * to its counts, and the two distinct deletions: the definition only, then everything once its name is typed.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { before, describe, test } from "node:test";
import { openPage, showPanel, useChatService, VIEWPORTS } from "../support/browser.js";

const chat = useChatService();

for (const viewport of VIEWPORTS) {
	describe(`personas panel at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		test("create from the template, edit with validation, run, remove and purge", async () => {
			const name = `scribe-${viewport.name}`;
			const root = join(chat.service.agentDir, "personas", name);
			const page = await openPage(chat.browser, chat.service.skiff.url, viewport);
			try {
				await showPanel(page, viewport, "personas");
				const panel = page.locator("#panel-personas");
				await panel.locator("input[name='persona-name']").fill("../escape");
				await panel.locator("button:has-text('Create from template')").click();
				assert.match((await panel.locator("[role='alert']").textContent())!, /Invalid persona name/);
				assert.equal(await panel.locator("input[name='persona-name']").getAttribute("aria-invalid"), "true");

				await panel.locator("input[name='persona-name']").fill(name);
				await panel.locator("button:has-text('Create from template')").click();
				const editor = panel.locator("textarea[name='persona-content']");
				await editor.waitFor();
				assert.match(await editor.inputValue(), new RegExp(`name: ${name}`));
				assert.match((await panel.locator(".panel-header h2").textContent())!, new RegExp(name));

				// An invalid definition is refused with the service's reason, next to the editor; nothing changes.
				await editor.fill(`---\nname: ${name}\n---\nNo description.\n`);
				await panel.locator("button:has-text('Save')").click();
				await panel.locator(".persona-edit [role='alert']:has-text('description is required')").waitFor();
				await editor.fill(`---\nname: ${name}\ndescription: Keeps the notes\n---\nYou keep notes.\n`);
				await panel.locator("button:has-text('Save')").click();
				await panel.locator(".persona-edit [role='status']:has-text('Saved.')").waitFor();
				await panel.locator(".persona-title:has-text('Keeps the notes')").waitFor();

				// A run is a job: it can be opened in the Jobs panel; once finished, it is one more session.
				await panel.locator("textarea[name='persona-task']").fill('CALL yield {"text":"notes kept"}');
				await panel.locator(`button:has-text('Run ${name}')`).click();
				await panel.locator(".persona-started:has-text('Started job')").waitFor();
				await panel.locator(".persona-counts:has-text('1 session')").waitFor();
				await panel.locator("button:has-text('Open in Jobs')").click();
				const jobs = page.locator("#panel-jobs");
				await jobs.locator(".job-output:has-text('notes kept')").waitFor();
				assert.match((await jobs.locator(".job-meta").first().textContent())!, new RegExp(name));
				await showPanel(page, viewport, "personas");

				// Removing the definition keeps the folder; its memory and sessions stay listed.
				await panel.locator("button:has-text('Remove definition…')").click();
				const confirmRemove = panel.locator(".confirm[aria-label='Confirm removing the definition']");
				assert.match((await confirmRemove.textContent())!, /1 archived session stay/);
				await confirmRemove.locator("button:has-text('Remove definition')").click();
				await panel.locator(".tag:has-text('removed')").waitFor();
				assert.equal(await editor.count(), 0, "a removed definition cannot be edited");
				assert.equal(existsSync(join(root, "persona.md")), false);
				assert.equal(existsSync(root), true);

				// Purging asks for the name before it deletes the whole folder.
				await panel.locator("button:has-text('Purge everything…')").click();
				const purge = panel.locator(`button:has-text('Purge ${name}')`);
				assert.equal(await purge.isDisabled(), true);
				await panel.locator("input[name='purge-confirm']").fill("scribe");
				assert.equal(await purge.isDisabled(), true, "only the exact name confirms");
				await panel.locator("input[name='purge-confirm']").fill(name);
				await purge.click();
				await panel.locator("input[name='persona-name']").waitFor();
				assert.equal(await panel.locator(`.persona-list li:has-text('${name}')`).count(), 0);
				assert.equal(existsSync(root), false);
			} finally {
				await page.context().close();
			}
		});
	});
}
