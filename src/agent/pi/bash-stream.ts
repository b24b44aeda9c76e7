/**
 * The events of a shell command the user runs in a session (`bash`): its start, its output as it comes, and
 * its end with the message recorded in the transcript. pi's own RPC mode reports only the result; Skiff also
 * tells every client following the session, so a second client sees the command and its output too.
 */
import type { BashOutcome, JsonObject, RuntimeEvent } from "../types.js";

/**
 * Output streamed per command, in characters. pi keeps only the tail of a long output in the recorded message
 * (and the whole output in a file it names), so the stream stops here rather than pushing megabytes to clients.
 */
export const MAX_STREAMED_BASH_OUTPUT = 1024 * 1024;

export class BashStream {
	private streamed = 0;
	private capped = false;

	constructor(private readonly emit: (event: RuntimeEvent) => void) {}

	start(command: string): void {
		this.emit({ type: "bash_execution_start", command });
	}

	/** A chunk of output (already sanitized by pi); dropped once the stream's cap is reached. */
	output(chunk: string): void {
		if (this.capped || chunk.length === 0) return;
		const room = MAX_STREAMED_BASH_OUTPUT - this.streamed;
		const delta = chunk.length > room ? chunk.slice(0, room) : chunk;
		this.streamed += delta.length;
		this.capped = this.streamed >= MAX_STREAMED_BASH_OUTPUT;
		this.emit({ type: "bash_execution_update", outputDelta: delta, ...(this.capped ? { capped: true } : {}) });
	}

	/**
	 * The command ended and pi recorded it (`recorded`), or queued it until the active run ends (`queued`: the
	 * message is then built from the result, as pi will record it).
	 */
	end(result: BashOutcome, recorded: JsonObject | undefined, command: string, queued: boolean): void {
		const message = recorded ?? {
			role: "bashExecution",
			command,
			output: result.output,
			exitCode: result.exitCode,
			cancelled: result.cancelled,
			truncated: result.truncated,
			fullOutputPath: result.fullOutputPath,
			timestamp: Date.now(),
		};
		this.emit({ type: "bash_execution_end", message, queued });
	}

	/** The command could not be run at all (no shell); nothing was recorded. */
	fail(error: unknown): void {
		this.emit({ type: "bash_execution_end", queued: false, error: error instanceof Error ? error.message : String(error) });
	}
}
