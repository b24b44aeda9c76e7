/** The user's own shell commands in a session (pi's `!command`): run, recorded in the transcript, stoppable. */
import { Type } from "typebox";
import { CodedError } from "../../shared/errors.js";
import { defineCommand, NoFields, NoResult } from "../command.js";

/** Longest shell command accepted (a command line, not a script file). */
export const MAX_SHELL_COMMAND_CHARS = 64 * 1024;

export const bash = defineCommand({
	name: "bash",
	summary:
		"Runs a shell command in the session's cwd and records it (with its output) as a `bashExecution` message the " +
		"model sees from the next prompt on. Answers when the command has ended; `bash_execution_*` events stream it to " +
		"every client following the session. Refused (`busy`) while a run or another shell command is active.",
	params: Type.Object(
		{ command: Type.String({ minLength: 1, maxLength: MAX_SHELL_COMMAND_CHARS, description: "A command line for the shell." }) },
		{ additionalProperties: false },
	),
	result: Type.Object(
		{
			output: Type.String({ description: "Standard output and error together; the tail when `truncated`." }),
			exitCode: Type.Optional(Type.Integer({ description: "Absent when the command was killed (`abort_bash`)." })),
			cancelled: Type.Boolean(),
			truncated: Type.Boolean(),
			fullOutputPath: Type.Optional(Type.String({ description: "Where the whole output was saved when it was truncated." })),
		},
		{ title: "BashResult" },
	),
	handler: async ({ command }, context) => {
		if (!command.trim()) throw new CodedError("invalid_command", "Invalid command: `command` cannot be blank");
		return (await context.session()).handle.runBash(command);
	},
});

export const abortBash = defineCommand({
	name: "abort_bash",
	summary: "Kills the session's running shell command (it is recorded as cancelled). Succeeds when none runs.",
	params: NoFields,
	result: NoResult,
	handler: async (_params, context) => (await context.session()).handle.abortBash(),
});

export const shellCommands = [bash, abortBash];
