/**
 * The launcher (bin/skiff) keeps V8's young generation at its first size while the service starts, so that
 * start-up's garbage does not grow it for good (idle memory), and offers a function that lets it grow again as V8
 * grows it by default. The service calls it when start-up is over: a run's many short-lived objects (every delta
 * of a reply) are collected far less often in a young generation that may grow (docs/benchmarks.md, "Start-up").
 * Outside the launcher (the tests' in-process services) there is nothing to undo and this does nothing.
 */
const startUpOverHook = Symbol.for("skiff.startUpOver");

export function startUpIsOver(): void {
	(globalThis as typeof globalThis & { [startUpOverHook]?: () => void })[startUpOverHook]?.();
}
