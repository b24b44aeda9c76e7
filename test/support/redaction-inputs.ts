/**
 * Inputs built to make the redactor (src/shared/redact.ts) slow, one set per rule: long runs of the rule's
 * prefix, near misses (one character short, the wrong ending) repeated, the rules' prefixes interleaved, and
 * the issue's "-eyJAAAAAAAA" run; and made-up credentials of every shape it masks. The linear-time fuzz
 * (test/unit/shared/redact-linear.test.ts) and the stress scenario (stress/scenarios/redaction.ts) share them.
 */
import { Prng } from "./prng.js";

export interface AdversarialShape {
	rule: string;
	name: string;
	/** Written once before the repeated unit (a PEM block's header, so its body is what repeats). */
	head?: string;
	unit: string;
}

const run = (char: string, n: number) => char.repeat(n);

export const ADVERSARIAL_SHAPES: readonly AdversarialShape[] = [
	{ rule: "pem", name: "BEGIN headers", unit: "-----BEGIN " },
	{ rule: "pem", name: "headers one dash short", unit: "-----BEGIN RSA PRIVATE KEY----" },
	{ rule: "pem", name: "header words without the dashes", unit: "-----BEGIN PRIVATE KEY PRIVATE KEY " },
	{ rule: "pem", name: "END near misses inside a block", head: "-----BEGIN PRIVATE KEY-----\n", unit: "-----END PRIVATE KEY----\n-----END " },
	{ rule: "api-key", name: "sk- runs", unit: "sk-" },
	{ rule: "api-key", name: "keys one character short", unit: `sk-${run("a", 15)} pk-${run("b", 15)} rk-${run("c", 15)} ` },
	{ rule: "api-key", name: "dash-joined prefixes", unit: "-sk-a" },
	{ rule: "github", name: "ghp_ runs", unit: "ghp_" },
	{ rule: "github", name: "tokens one character short", unit: `ghp_${run("a", 19)} gho_${run("b", 19)}-github_pat_${run("c", 19)} ` },
	{ rule: "github", name: "github_pat_ runs", unit: "github_pat_" },
	{ rule: "slack", name: "xoxb- runs", unit: "xoxb-" },
	{ rule: "slack", name: "tokens one character short", unit: `xoxp-${run("a", 9)} ` },
	{ rule: "aws", name: "AKIA runs", unit: "AKIA" },
	{ rule: "aws", name: "ids one character short or long", unit: `AKIA${run("A", 15)} ASIA${run("B", 17)} ` },
	{ rule: "google", name: "AIza runs", unit: "AIza" },
	{ rule: "google", name: "keys one character short", unit: `AIza${run("a", 29)} ` },
	{ rule: "npm", name: "npm_ runs", unit: "npm_" },
	{ rule: "npm", name: "tokens one character short or long", unit: `npm_${run("a", 35)} npm_${run("b", 37)} ` },
	{ rule: "huggingface", name: "hf_ runs", unit: "hf_" },
	{ rule: "huggingface", name: "tokens short, or ending in a word character", unit: `hf_${run("a", 29)} hf_${run("b", 40)}_ ` },
	{ rule: "jwt", name: "the issue's example", unit: "-eyJAAAAAAAA" },
	{ rule: "jwt", name: "eyJ runs", unit: "eyJ" },
	{ rule: "jwt", name: "headers without a payload", unit: "eyJAAAAAAAA." },
	{ rule: "jwt", name: "a payload without its dot", unit: "-eyJAAAAAAAA.AAAAAAAA" },
	{ rule: "jwt", name: "parts one character short", unit: "eyJAAAAAAA.AAAAAAA.-" },
	{ rule: "bearer", name: "Bearer runs", unit: "Bearer " },
	{ rule: "bearer", name: "values one character short", unit: "bearer abcdefg\n" },
	{ rule: "bearer", name: "Bearer then whitespace only", head: "Bearer", unit: " \t" },
	{ rule: "pair", name: "names without a value", unit: "token" },
	{ rule: "pair", name: "names with an empty value", unit: "token=" },
	{ rule: "pair", name: "values one character short", unit: 'api_key: "abc" password=xyz;' },
	{ rule: "pair", name: "a name then whitespace only", head: "password", unit: " \n\t" },
	{ rule: "mixed", name: "every prefix interleaved", unit: "sk-ghp_github_pat_xoxb-AKIAAIzanpm_hf_eyJ-----BEGIN Bearer token=" },
	{ rule: "mixed", name: "near misses interleaved", unit: `-eyJAAAAAAAA.sk-aaaa token: Bearer x hf_${run("a", 29)}_` },
	{ rule: "plain", name: "one word", unit: "a" },
	{ rule: "plain", name: "dashes", unit: "-" },
	{ rule: "plain", name: "whitespace", unit: " " },
];

/** `shape` repeated to exactly `chars` characters. */
export function adversarialText(shape: AdversarialShape, chars: number): string {
	const head = shape.head ?? "";
	const body = shape.unit.repeat(Math.ceil(Math.max(0, chars - head.length) / shape.unit.length) + 1);
	return (head + body).slice(0, chars);
}

/** Pieces of every rule's prefixes and near misses, for random interleavings. */
const FRAGMENTS = [
	...new Set(ADVERSARIAL_SHAPES.flatMap((shape) => [shape.unit, ...(shape.head ? [shape.head] : [])])),
	"eyJ",
	".",
	"-",
	"_",
	"=",
	":",
	'"',
	" ",
	"\n",
	"AAAAAAAA",
];

/** A random interleaving of the rules' prefixes and near misses, `chars` characters long. */
export function interleavedText(seed: number, chars: number): string {
	const prng = new Prng(seed);
	const parts: string[] = [];
	for (let length = 0; length < chars; ) {
		const piece = prng.pick(FRAGMENTS);
		parts.push(piece);
		length += piece.length;
	}
	return parts.join("").slice(0, chars);
}

/**
 * Made-up credentials (none was ever valid) of every shape the redactor masks: `text` as written, `redacted`
 * as the redactor writes it, `secret` the part that must never be shown.
 */
export interface SecretSample {
	rule: string;
	text: string;
	redacted: string;
	secret: string;
}

const whole = (rule: string, text: string): SecretSample => ({ rule, text, redacted: "[REDACTED]", secret: text });

export const SECRET_SAMPLES: readonly SecretSample[] = [
	{
		rule: "pem",
		text: "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn\n-----END RSA PRIVATE KEY-----",
		redacted: "[REDACTED]",
		secret: "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn",
	},
	whole("api-key", "sk-ant-api03-abcdefghijklmnopqrstu"),
	whole("api-key", "pk-live0123456789abcdef"),
	whole("api-key", "rk-test_0123456789abcdef"),
	whole("github", "ghp_abcdefghijklmnopqrstuvwxyz012345"),
	whole("github", "ghs_ABCDEFGHIJKLMNOPQRSTUV"),
	whole("github", "github_pat_11ABCDEFG0123456789_abcdefghij"),
	whole("slack", "xoxb-1234567890-abcdef"),
	whole("aws", "AKIAABCDEFGHIJKLMNOP"),
	whole("aws", "ASIA0123456789ABCDEF"),
	whole("google", `AIza${"Sy0123456789abcdefghij_-".repeat(2)}`),
	whole("npm", `npm_${"a1B2c3D4e5F6".repeat(3)}`),
	whole("huggingface", `hf_${"QwErTyUiOp1234567890".repeat(2)}`),
	whole("jwt", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"),
	whole("jwt", "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjM0NTY3ODkwIn0."),
	{ rule: "jwt", text: "x-eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2ln", redacted: "x-[REDACTED]", secret: "eyJzdWIiOiIxMjM0NTY3ODkwIn0" },
	{ rule: "bearer", text: "Bearer abc.def-ghi_jkl/mno+pqr=", redacted: "Bearer [REDACTED]", secret: "abc.def-ghi_jkl/mno+pqr=" },
	{ rule: "pair", text: "token=abcd1234", redacted: "token=[REDACTED]", secret: "abcd1234" },
	{ rule: "pair", text: 'api_key: "zzzz9999"', redacted: 'api_key: "[REDACTED]"', secret: "zzzz9999" },
	{ rule: "pair", text: "password=hunter22", redacted: "password=[REDACTED]", secret: "hunter22" },
	{ rule: "pair", text: "ACCESS-TOKEN : 'tok-0123'", redacted: "ACCESS-TOKEN : '[REDACTED]'", secret: "tok-0123" },
];
