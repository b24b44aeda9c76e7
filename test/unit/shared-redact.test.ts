import assert from "node:assert/strict";
import { test } from "node:test";
import { REDACTED, redactSecrets } from "../../src/shared/redact.js";

test("credential shapes are masked, ordinary text is not", () => {
	const cases: Array<[string, string]> = [
		["key sk-ant-api03-abcdefghijklmnopqrstu end", `key ${REDACTED} end`],
		["ghp_abcdefghijklmnopqrstuvwxyz012345", REDACTED],
		["xoxb-1234567890-abcdef", REDACTED],
		["id AKIAABCDEFGHIJKLMNOP.", `id ${REDACTED}.`],
		["Authorization: Bearer abc.def-ghi_jkl", `Authorization: Bearer ${REDACTED}`],
		["url?token=abcd1234&x=1", `url?token=${REDACTED}&x=1`],
		['{"api_key": "zzzz9999"}', `{"api_key": "${REDACTED}"}`],
		["mytoken=abcdefgh", `mytoken=${REDACTED}`],
		["-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----", REDACTED],
		["-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA unterminated", REDACTED],
	];
	for (const [input, expected] of cases) assert.equal(redactSecrets(input), expected, input);
	for (const plain of ["the task is done", "use a token to log in", "sk-short", "password reset flow"]) {
		assert.equal(redactSecrets(plain), plain);
	}
});
