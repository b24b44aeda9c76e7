/**
 * Makes the service refuse the page's get_image commands (each is made to name an entry that is not there,
 * through Playwright's routeWebSocket), until `allow`: the bubble's Retry tiles, in a test and a screenshot.
 */
import type { Page } from "playwright-core";

/** Routes the page's next WebSockets (call before it reloads); resolves with the switch that lets them through. */
export async function refuseImages(page: Page): Promise<{ allow(): void }> {
	let refuse = true;
	await page.routeWebSocket(/\/ws(\?|$)/, (ws) => {
		const server = ws.connectToServer();
		ws.onMessage((message) => {
			const frame = JSON.parse(String(message));
			server.send(refuse && frame.type === "get_image" ? JSON.stringify({ ...frame, entryId: "gone" }) : message);
		});
		server.onMessage((message) => ws.send(message));
	});
	return { allow: () => (refuse = false) };
}
