/**
 * The page's own preferences for being told when a run ends (localStorage: they belong to this browser, not to
 * the service): system notifications and a short sound. And why notifications cannot work here, when they cannot.
 */

export type AlertPref = "notify" | "sound";

const KEY = (pref: AlertPref) => `skiff.alerts.${pref}`;

export function alertPref(pref: AlertPref): boolean {
	try {
		return localStorage.getItem(KEY(pref)) === "on";
	} catch {
		return false; // storage refused (a private window's policy): off
	}
}

export function setAlertPref(pref: AlertPref, on: boolean): void {
	try {
		if (on) localStorage.setItem(KEY(pref), "on");
		else localStorage.removeItem(KEY(pref));
	} catch {
		// Not kept: it applies until the page is reloaded.
	}
}

/** Why this page cannot show system notifications, or undefined when it can (once permitted). */
export function notificationProblem(): string | undefined {
	if (!isSecureContext) return "Notifications need a secure context: this page is plain HTTP at an address other than localhost. Open it over HTTPS, or at localhost.";
	if (typeof Notification === "undefined") return "This browser cannot show notifications.";
	if (Notification.permission === "denied") return "Notifications are blocked for this site. Allow them in the browser's site settings, then switch them on here.";
	return undefined;
}

/** Whether a notification may be shown now: switched on, and permitted. */
export function notificationsOn(): boolean {
	return alertPref("notify") && notificationProblem() === undefined && Notification.permission === "granted";
}

/** A short beep (WebAudio, no sound file); silent where audio cannot play. */
export function beep(): void {
	try {
		const audio = new AudioContext();
		const tone = audio.createOscillator();
		const gain = audio.createGain();
		tone.frequency.value = 880;
		gain.gain.setValueAtTime(0.2, audio.currentTime);
		gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.3);
		tone.connect(gain).connect(audio.destination);
		tone.onended = () => void audio.close();
		tone.start();
		tone.stop(audio.currentTime + 0.3);
	} catch {
		// No audio here.
	}
}
