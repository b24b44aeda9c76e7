import assert from "node:assert/strict";
import { test } from "node:test";
import { isAuthority, isBracketedIPv6, isHostName, MAX_HOST_NAME_LENGTH, MAX_LABEL_LENGTH } from "../../../src/listener/host-syntax.js";

test("host names: DNS labels or an IPv4 address, nothing else", () => {
	const label = "a".repeat(MAX_LABEL_LENGTH);
	for (const host of ["localhost", "Host.LAN", "a", "xn--bcher-kva.example", "my-host.example.com", "1e100.net", "127.0.0.1", "0.0.0.0", label]) {
		assert.equal(isHostName(host), true, host);
	}
	const tooLong = Array.from({ length: 64 }, () => "abc").join("."); // 255 characters
	assert.ok(tooLong.length > MAX_HOST_NAME_LENGTH);
	for (const host of ["", "-host", "host-", "a..b", ".host", "host.", "ho st", "ho_st", "höst", "999.1.1.1", "1.2.3", "::1", "[::1]", "host:80", `${label}a`, tooLong]) {
		assert.equal(isHostName(host), false, host);
	}
});

test("bracketed IPv6 addresses", () => {
	for (const host of ["[::1]", "[2001:DB8::1]", "[::ffff:127.0.0.1]"]) assert.equal(isBracketedIPv6(host), true, host);
	for (const host of ["::1", "[::1", "[:::]", "[zz]", "[fe80::1%25eth0]", "[]"]) assert.equal(isBracketedIPv6(host), false, host);
});

test("authorities: a host with an optional port, built from the host-name rule", () => {
	for (const authority of ["localhost", "localhost:8787", "127.0.0.1:1", "[::1]:80", "[::1]", "Example.COM:65535", "host:0"]) {
		assert.equal(isAuthority(authority), true, authority);
	}
	for (const authority of ["", ":80", "::1", "::1:80", "[::1]80", "host:", "host:65536", "host:123456", "host:-1", "a b:1", "999.1.1.1:80", "u@host", "host/x", "host:80:80", "[zz]:1"]) {
		assert.equal(isAuthority(authority), false, authority);
	}
});
