/**
 * Secret redaction for text the service sends or logs (errors, warnings), and for model text the web page
 * shows. It masks the credential shapes that most often leak: provider API keys, GitHub, Slack, npm and
 * Hugging Face tokens, AWS access keys, JWTs, bearer strings, `token=`-style pairs and PEM private key blocks.
 *
 * Every pattern runs in time linear in the text, whatever the text (a prompt of megabytes, a model's reply
 * built to hurt): a match can start only where its fixed prefix is, and what one failed attempt scanned no
 * later attempt scans again (test/unit/shared/redact-linear.test.ts times each shape's worst inputs per MiB).
 */

/** The one marker that stands where a secret was, in every view, error and log line. */
export const REDACTED = "[REDACTED]";

const SECRET_PATTERNS: RegExp[] = [
	/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
	/\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}/g, // OpenAI, Anthropic (sk-ant-...), Stripe-style keys
	/\bgh[pousr]_[A-Za-z0-9]{20,}/g, // GitHub tokens
	/\bgithub_pat_[A-Za-z0-9_]{20,}/g,
	/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, // Slack tokens
	/\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, // AWS access key ids
	/\bAIza[A-Za-z0-9_-]{30,}/g, // Google API keys
	/\bnpm_[A-Za-z0-9]{36}\b/g, // npm access tokens
	/\bhf_[A-Za-z0-9]{30,}\b/g, // Hugging Face tokens
];

/**
 * JWTs: base64url JSON header, payload, signature (empty when unsigned); group 1 is set when one matched.
 * Base64url runs hold `-`, a word boundary, so one run can hold many `eyJ` starts ("-eyJAAAAAAAA" × 25,000):
 * tried from each, the header scanned to the run's end every time, 300 KB took 19 s. The header can only end
 * where its run ends, so when no token starts at the first `eyJ` of a run none starts at a later one either:
 * the second branch then takes the rest of the run, kept as it is, and the scan goes on after it.
 */
const JWT_PATTERN = /\beyJ(?:([A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)|[A-Za-z0-9_-]*)/g;

/** `Bearer <secret>` keeps its scheme word. */
const BEARER_PATTERN = /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi;
/** `token=...`, `api_key: ...`, `"secret": "..."` keep their names (also inside longer names: `mytoken=`). */
const PAIR_PATTERN =
	/((?:api[_-]?key|apikey|access[_-]?token|auth[_-]?token|token|secret|password|passwd)["']?\s*[:=]\s*["']?)([^\s"'&,;]{4,})/gi;

/** `text` with every secret shape above replaced by REDACTED (names of `name=secret` pairs are kept). */
export function redactSecrets(text: string): string {
	let out = text;
	for (const pattern of SECRET_PATTERNS) out = out.replace(pattern, REDACTED);
	out = out.replace(JWT_PATTERN, (run, token: string | undefined) => (token === undefined ? run : REDACTED));
	out = out.replace(BEARER_PATTERN, `$1${REDACTED}`);
	out = out.replace(PAIR_PATTERN, (_m, name: string) => `${name}${REDACTED}`);
	return out;
}
