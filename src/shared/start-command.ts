/**
 * The command that started this service, as a user would type it again (with a variable in front, such as a
 * provider key): `npm start` from a checkout, `skiff` when it was found on the PATH, else `node <script>`. The
 * page's setup help shows it, so that its example works however the service was started: `ANTHROPIC_API_KEY=…
 * skiff` does nothing for someone who runs `npm start` in a checkout.
 */
import { basename, delimiter, dirname, isAbsolute, relative, resolve } from "node:path";

export function startCommand(env: NodeJS.ProcessEnv = process.env, argv: readonly string[] = process.argv, cwd = process.cwd()): string {
	// npm sets npm_lifecycle_event to the script it runs: `npm start` runs "start", `npm run dev` runs "dev".
	const script = env.npm_lifecycle_event;
	if (script) return script === "start" ? "npm start" : `npm run ${script}`;
	const main = argv[1];
	if (!main) return "skiff";
	const path = resolve(cwd, main);
	const onPath = (env.PATH ?? "").split(delimiter).some((dir) => dir && resolve(cwd, dir) === dirname(path));
	if (onPath) return basename(path);
	const near = relative(cwd, path);
	return `node ${near && !near.startsWith("..") && !isAbsolute(near) ? near : path}`;
}
