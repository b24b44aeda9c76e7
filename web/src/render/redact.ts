/**
 * Every model-derived string passes through here before it reaches the DOM: the same redaction the
 * service applies to its own errors (API-key shapes, bearer strings, token= pairs, PEM private keys).
 * The page never inserts model text as HTML: Preact renders it as text nodes, deltas included. REDACTED is
 * the service's marker, shown where a secret setting's value would be.
 */
export { REDACTED, redactSecrets as redact } from "../../../src/shared/redact.js";
