/**
 * Settings' "When a run ends" section: system notifications and a sound, this browser's preferences
 * (alert-prefs.ts). The browser's permission is asked only when the switch is turned on; where notifications
 * cannot work (not a secure context, blocked, no support) the switch says why and stays off.
 */
import { useState } from "preact/hooks";
import { alertPref, notificationProblem, setAlertPref } from "../../state/alert-prefs";
import { PanelSection } from "./panel-layout";

export function AlertSettings() {
	const [, setVersion] = useState(0);
	const changed = () => setVersion((n) => n + 1);
	const problem = notificationProblem();
	const notify = !problem && alertPref("notify") && Notification.permission === "granted";
	const turnOn = async (on: boolean) => {
		setAlertPref("notify", false);
		// Asked on this click only; a refusal leaves it off, and the sentence below says why.
		if (on && (await Notification.requestPermission()) === "granted") setAlertPref("notify", true);
		changed();
	};
	return (
		<PanelSection title="When a run ends">
			<p class="hint">While this page is hidden, for every session it follows: when a run ends or fails, or a goal pauses.</p>
			<label class="check">
				<input type="checkbox" checked={notify} disabled={problem !== undefined} aria-describedby="alerts-notify-why" onChange={(e) => void turnOn((e.target as HTMLInputElement).checked)} />
				Show a notification
			</label>
			<p id="alerts-notify-why" class="hint">{problem ?? "Clicking it brings you to that session."}</p>
			<label class="check">
				<input
					type="checkbox"
					checked={alertPref("sound")}
					onChange={(e) => {
						setAlertPref("sound", (e.target as HTMLInputElement).checked);
						changed();
					}}
				/>
				Play a short sound
			</label>
		</PanelSection>
	);
}
