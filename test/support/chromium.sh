#!/bin/bash
# Chromium as the tests launch it (see launchBrowser in browser.ts): the command Chromium would get, with every
# --disable-features=… merged into one. Chromium reads only the last of a repeated switch, so the tests' own list
# would undo playwright-core's (which keeps the browser off the network at start); merged, both hold.
# SKIFF_CHROMIUM_BINARY is the Chromium to run (CHROMIUM_PATH, Debian's /usr/bin/chromium by default).
features=()
args=()
for arg in "$@"; do
	case "$arg" in
	--disable-features=*) features+=("${arg#--disable-features=}") ;;
	*) args+=("$arg") ;;
	esac
done
if [ ${#features[@]} -gt 0 ]; then
	IFS=,
	args+=("--disable-features=${features[*]}")
fi
exec "${SKIFF_CHROMIUM_BINARY:?the Chromium to run}" "${args[@]}"
