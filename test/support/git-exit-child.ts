/**
 * A child process for git-groups.test.ts: runs git as the service does, leaving (1) a process a hook started
 * after git answered and (2) a git whose hook hangs, both ignoring SIGTERM, then exits with process.exit (as the
 * CLI does once the service closed, here without the shutdown's stop). Prints the two pids on one line first.
 * Usage: node --import tsx test/support/git-exit-child.ts <repository> <hooks folder>
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { git } from "../../src/features/git.js";
import { writtenPid } from "./git-repo.js";

const [repo, hooks] = process.argv.slice(2) as [string, string];
const commit = (hook: string) => git(repo, ["-c", `core.hooksPath=${join(hooks, hook)}`, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-a", "-m", hook]);

writeFileSync(join(repo, "a.txt"), "one\n");
await git(repo, ["add", "a.txt"]);
await commit("leaves-behind"); // its post-commit hook leaves a process behind; git answers
const left = await writtenPid(join(hooks, "left.pid"));
writeFileSync(join(repo, "a.txt"), "two\n");
void commit("hangs").catch(() => undefined); // its pre-commit hook hangs, while git holds the index's lock file
const hanging = await writtenPid(join(hooks, "hanging.pid"));
process.stdout.write(`${left} ${hanging}\n`, () => process.exit(0));
