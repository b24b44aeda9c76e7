/** Lets `abort` also stop turn-start work (feature context) that runs before the agent streams. */
export class TurnStartAbort {
	private controller = new AbortController();

	/** The signal of the current turn start; replaced after each abort. */
	get signal(): AbortSignal {
		return this.controller.signal;
	}

	abort(): void {
		this.controller.abort();
		this.controller = new AbortController();
	}
}
