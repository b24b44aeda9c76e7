/**
 * Standard output in `--mode rpc` carries protocol lines only. Anything else that would be written to it (a
 * library's console.log, a stray warning) goes to standard error instead, so a client parsing stdout never
 * meets a line that is not JSON.
 */

/** Where protocol lines are written. */
export interface LineOutput {
	/** Writes `text`; `done` is called once it is handed to the system (with an error when the reader is gone). */
	write(text: string, done: (error?: Error | null) => void): void;
	/** Called when the output fails (the client closed its end of the pipe). */
	onError(listener: (error: Error) => void): void;
}

/** Takes standard output over for protocol lines; every other write to it is sent to standard error. */
export function takeOverStdout(): LineOutput {
	const stdout = process.stdout;
	const write = stdout.write.bind(stdout) as (text: string, done: (error?: Error | null) => void) => boolean;
	const toStderr = (...args: unknown[]) => (process.stderr.write as (...a: unknown[]) => boolean)(...args);
	stdout.write = toStderr as typeof stdout.write;
	return {
		write: (text, done) => {
			write(text, done);
		},
		onError: (listener) => {
			stdout.on("error", listener);
		},
	};
}
