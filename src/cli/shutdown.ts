/** How the CLI ends a started service, in either mode: close it (runs stopped, sessions recorded), then exit. */
import { redactSecrets } from "../shared/redact.js";

/** The exit status of a start or a shutdown that failed. */
export const EXIT_FAILURE = 1;

/** Closes the service and exits: 0 once it has closed, EXIT_FAILURE (with the reason) when closing failed. */
export function shutDown(service: { close(): Promise<unknown> }): void {
	service.close().then(
		() => process.exit(0),
		(error) => {
			process.stderr.write(`shutdown failed: ${redactSecrets(String(error))}\n`);
			process.exit(EXIT_FAILURE);
		},
	);
}
