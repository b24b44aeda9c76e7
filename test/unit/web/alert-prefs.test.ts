/**
 * Where notifications cannot work, the settings say why (and the switch stays off): not a secure context, no
 * support, blocked for the site. The preferences live in localStorage, and a storage that refuses leaves them off.
 */
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { alertPref, notificationProblem, notificationsOn, setAlertPref } from "../../../web/src/state/alert-prefs.js";

const globals = globalThis as Record<string, unknown>;
const saved = { isSecureContext: globals.isSecureContext, Notification: globals.Notification, localStorage: globals.localStorage };

afterEach(() => Object.assign(globals, saved));

function page(options: { secure: boolean; permission?: NotificationPermission; storage?: Map<string, string> | "refused" }): void {
	globals.isSecureContext = options.secure;
	globals.Notification = options.permission === undefined ? undefined : { permission: options.permission };
	const storage = options.storage;
	globals.localStorage =
		storage === "refused"
			? {
					getItem: () => {
						throw new Error("SecurityError");
					},
					setItem: () => {
						throw new Error("SecurityError");
					},
					removeItem: () => undefined,
				}
			: { getItem: (k: string) => storage?.get(k) ?? null, setItem: (k: string, v: string) => storage?.set(k, v), removeItem: (k: string) => storage?.delete(k) };
}

test("a plain-HTTP address other than localhost is not a secure context: said, whatever the browser allows", () => {
	page({ secure: false, permission: "granted", storage: new Map([["skiff.alerts.notify", "on"]]) });
	assert.match(notificationProblem()!, /secure context: this page is plain HTTP at an address other than localhost/);
	assert.equal(notificationsOn(), false);
});

test("a browser without notifications, and a site that blocked them, are said as such", () => {
	page({ secure: true });
	assert.equal(notificationProblem(), "This browser cannot show notifications.");
	page({ secure: true, permission: "denied", storage: new Map([["skiff.alerts.notify", "on"]]) });
	assert.match(notificationProblem()!, /blocked for this site/);
	assert.equal(notificationsOn(), false);
});

test("switched on and permitted, notifications are on; the choice is kept in localStorage", () => {
	const storage = new Map<string, string>();
	page({ secure: true, permission: "granted", storage });
	assert.equal(notificationsOn(), false, "off until chosen");
	setAlertPref("notify", true);
	assert.equal(storage.get("skiff.alerts.notify"), "on");
	assert.equal(notificationsOn(), true);
	setAlertPref("notify", false);
	assert.equal(storage.has("skiff.alerts.notify"), false);
	page({ secure: true, permission: "default", storage: new Map([["skiff.alerts.notify", "on"]]) });
	assert.equal(notificationsOn(), false, "not without the permission");
});

test("a storage that refuses leaves both preferences off, without an error", () => {
	page({ secure: true, permission: "granted", storage: "refused" });
	setAlertPref("sound", true);
	assert.equal(alertPref("sound"), false);
	assert.equal(notificationsOn(), false);
});
