/**
 * Failed commands and failed runs, at the top of the main column (never over the message box or its Send
 * button), and the polite live region that reads out finished replies and connection changes, so that the
 * transcript itself need not be a live region.
 */
import type { Announcement, Toast } from "../state/controller";
import { redact } from "../render/redact";
import { Icon } from "./icons";

export function Toasts({ toasts, onDismiss }: { toasts: Toast[]; onDismiss(id: number): void }) {
	return (
		<div class="toasts" role="region" aria-label="Notifications">
			{toasts.map((t) => (
				<div key={t.id} class="toast" role="alert">
					<span>{redact(t.text)}</span>
					<button type="button" class="ghost icon small" onClick={() => onDismiss(t.id)} aria-label="Dismiss">
						<Icon name="close" />
					</button>
				</div>
			))}
		</div>
	);
}

export function LiveRegion({ announcement }: { announcement: Announcement | undefined }) {
	return (
		<div class="sr-only live-region" aria-live="polite" aria-atomic="true">
			{announcement && <span key={announcement.id}>{redact(announcement.text)}</span>}
		</div>
	);
}
