/**
 * What the run is doing while nothing streams: animated dots in the assistant's place with "Working…" or
 * "Running bash…". Not a live region (it changes too often to be read out); still without motion for those
 * who prefer reduced motion.
 */
export function WorkingIndicator({ label }: { label: string }) {
	return (
		<div class="msg assistant working" data-activity={label}>
			<span class="dots" aria-hidden="true">
				<i />
				<i />
				<i />
			</span>
			<span>{label}</span>
		</div>
	);
}
