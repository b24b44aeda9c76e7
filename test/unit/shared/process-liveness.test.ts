/** Telling whether the process that wrote a record still runs: exited, reused pids and zombies count as gone. */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { ownProcessMark, processRuns } from "../../../src/shared/process-liveness.js";

const PROC = existsSync("/proc/self/stat");

test("this process runs; a pid no process has does not", () => {
	assert.equal(processRuns(process.pid, ownProcessMark()), true);
	assert.equal(processRuns(process.pid), true);
	assert.equal(processRuns(999_999_999), false); // above the kernel's pid limit
});

test("a process that has exited no longer runs", async () => {
	const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
	await new Promise((resolve) => child.on("exit", resolve));
	assert.equal(processRuns(child.pid!), false);
});

test("a pid now held by another process than the one recorded does not run", { skip: !PROC && "needs /proc" }, () => {
	const mark = ownProcessMark()!;
	const [bootId, startTime] = mark.split("/");
	assert.equal(processRuns(process.pid, `${bootId}/${Number(startTime) + 1}`), false, "another start time");
	assert.equal(processRuns(process.pid, `another-boot/${startTime}`), false, "an earlier boot");
});

test("a zombie (exited, not yet collected by its parent) does not run", { skip: !PROC && "needs /proc" }, async () => {
	// The shell starts a short child, then becomes `sleep`, which never collects it: it stays a zombie. The child
	// outlives the `exec` (0.3 s): one that ended first could be collected by the shell itself, and its pid gone.
	for (let attempt = 1; ; attempt++) {
		const parent = spawn("sh", ["-c", "sleep 0.3 & echo $!; exec sleep 60"], { stdio: ["ignore", "pipe", "ignore"] });
		try {
			const zombie = Number(await new Promise<string>((resolve) => parent.stdout.once("data", (d) => resolve(String(d)))));
			const state = () => readFileSync(`/proc/${zombie}/stat`, "utf8").split(") ")[1]![0];
			try {
				while (state() !== "Z") await new Promise((resolve) => setTimeout(resolve, 5));
			} catch (error) {
				if ((error as NodeJS.ErrnoException).code === "ENOENT" && attempt < 3) continue; // collected after all
				throw error;
			}
			assert.equal(processRuns(zombie), false);
			return;
		} finally {
			parent.kill("SIGKILL");
		}
	}
});
