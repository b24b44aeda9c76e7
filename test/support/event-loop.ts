/**
 * Whether work leaves the event loop free: how many turns the loop made while a promise was pending. Work done
 * synchronously (behind an `async` signature or not) is over before the loop turns once, so it counts 0.
 */
export async function turnsWhile<T>(work: Promise<T>): Promise<{ value: T; turns: number }> {
	let turns = 0;
	let done = false;
	const turn = () => {
		if (done) return;
		turns++;
		setImmediate(turn);
	};
	setImmediate(turn);
	try {
		return { value: await work, turns };
	} finally {
		done = true;
	}
}
