/**
 * A child process for session-scan's memory test: reads one session file as the list and the search do
 * (summarize, then firstHit for each needle) and prints, as JSON, what they answered and how much its peak
 * resident memory (VmHWM) grew meanwhile, after a warm-up on another file (one with a line long enough to be
 * cut) has loaded and compiled the code and grown V8's young generation as reading does.
 * Usage: node --import tsx test/support/scan-memory.ts <session file> <warm-up session file> <needle>...
 */
import { readFileSync } from "node:fs";
import { firstHit, summarize } from "../../src/agent/pi/session-scan.js";

const peakBytes = (): number => Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync("/proc/self/status", "utf8"))![1]) * 1024;

const [path, warmUp, ...needles] = process.argv.slice(2);
for (let i = 0; i < 3; i++) {
	await summarize(warmUp!);
	await firstHit(warmUp!, "warm", false);
}
const before = peakBytes();
const summary = await summarize(path!);
const hits: Array<string | undefined> = [];
for (const needle of needles) hits.push(await firstHit(path!, needle, false));
console.log(JSON.stringify({ grownBytes: peakBytes() - before, messageCount: summary?.messageCount, firstMessage: summary?.firstMessage, hits }));
