/** The `?` dialog: every keyboard shortcut of the page. */
import { Fragment } from "preact";
import { Dialog } from "./dialog";
import { SHORTCUTS } from "./shortcuts";

export function ShortcutsDialog({ onClose }: { onClose(): void }) {
	return (
		<Dialog id="shortcuts" class="shortcuts" title="Keyboard shortcuts" onClose={onClose}>
			<div class="dialog-body">
				<dl class="shortcut-list">
					{SHORTCUTS.map((s) => (
						<Fragment key={s.what}>
							<dt>
								{s.keys.map((k, n) => (
									<Fragment key={k}>
										{n > 0 && "+"}
										<kbd>{k}</kbd>
									</Fragment>
								))}
							</dt>
							<dd>{s.what}</dd>
						</Fragment>
					))}
				</dl>
			</div>
		</Dialog>
	);
}
