/**
 * A dispatcher for the moments before the runtime is loaded: the listener accepts connections at once, and
 * every command waits until the real dispatcher is ready (nothing is refused or lost), or fails with the
 * reason start-up failed.
 */
import { CodedError } from "../shared/errors.js";
import { UploadRefused } from "./attachment-store.js";
import type { ClientLink, EventClient, SubscribeResult } from "./context.js";
import { type Dispatcher, refusal, refusalOf } from "./dispatch.js";
import { errorMessage } from "./envelope.js";
import type { PublishedEvent } from "./event-hub.js";

export function deferredDispatcher(ready: Promise<Dispatcher>): Dispatcher {
	let dispatcher: Dispatcher | undefined;
	let failure: string | undefined;
	ready.then(
		(d) => (dispatcher = d),
		(error: unknown) => (failure = `The service failed to start: ${errorMessage(error)}`),
	);
	const whenReady = async <T>(use: (d: Dispatcher) => Promise<T>, fallback: (reason: string) => T): Promise<T> => {
		try {
			return await use(dispatcher ?? (await ready));
		} catch (error) {
			if (dispatcher) throw error;
			return fallback(failure ?? errorMessage(error));
		}
	};
	/** A failure to start, thrown as `refused` makes it. */
	const thrown = (refused: (reason: string) => Error) => (reason: string): never => {
		throw refused(reason);
	};
	return {
		dispatchText: (text, client) => whenReady((d) => d.dispatchText(text, client), (reason) => refusal(text, reason, "unavailable")),
		dispatchValue: (value, client) => whenReady((d) => d.dispatchValue(value, client), (reason) => refusalOf(value, reason, "unavailable")),
		eventClient: (deliver: (published: PublishedEvent) => void, drained?: () => Promise<void>) =>
			lazyEventClient(() => dispatcher?.eventClient(deliver, drained), drained),
		refuse: refusal,
		download: (sessionId, format) => whenReady((d) => d.download(sessionId, format), thrown((reason) => new CodedError("unavailable", reason))),
		upload: (body, mimeType, length) => whenReady((d) => d.upload(body, mimeType, length), thrown((reason) => new UploadRefused(503, reason))),
	};
}

/**
 * An event client made on first use: its methods are only called by command handlers, which run once the
 * real dispatcher is ready.
 */
function lazyEventClient(make: () => EventClient | undefined, drained?: () => Promise<void>): EventClient {
	let client: EventClient | undefined;
	const real = (): EventClient => {
		client ??= make();
		if (!client) throw new Error("The service is still starting");
		return client;
	};
	return {
		transport: "ws",
		follow: (sessionId: string) => real().follow(sessionId),
		subscribe: (sessionId: string, sinceSeq: number | undefined, epoch: string | undefined): SubscribeResult =>
			real().subscribe(sessionId, sinceSeq, epoch),
		close: () => client?.close(),
		drained,
	} satisfies EventClient & ClientLink;
}
