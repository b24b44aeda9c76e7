/**
 * `doctor`: what stands between the user and a working agent, each check with a plain explanation and, when it
 * fails, what to do. The facts it needs beyond the addressed session (the agent directory, the tools, how the
 * service is reached, feature checks) are handed in by the composition root as plain data and functions.
 */
import { randomBytes } from "node:crypto";
import { unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Static, Type } from "typebox";
import type { LoadedSession } from "../../agent/runtime-manager.js";
import { redactSecrets } from "../../shared/redact.js";
import { defineCommand } from "../command.js";

export const DoctorCheckSchema = Type.Object(
	{
		id: Type.String({ description: "Stable name of the check (model, model_reachable, rg, fd, agent_dir, listener_auth, memory)." }),
		ok: Type.Boolean(),
		caution: Type.Optional(
			Type.Boolean({ description: "Passed, with a risk worth knowing (the setup works as asked but is open: `detail` says to whom, `fix` how to close it)." }),
		),
		title: Type.String({ description: "What is checked, in a few words: a subject, never a verdict (`ok` and `detail` are the verdict)." }),
		detail: Type.String({ description: "What was found, in a sentence (secrets redacted)." }),
		fix: Type.Optional(Type.String({ description: "What to do about a failed check (or one passed with a caution)." })),
	},
	{ title: "DoctorCheck" },
);
export type DoctorCheck = Static<typeof DoctorCheckSchema>;

/** How clients reach the service: a listener (its address and authentication), or standard input and output. */
export type ServiceReach =
	| { transport: "listener"; url: string; loopback: boolean; token: boolean }
	| { transport: "stdio" };

/** Facts of the running service, from the composition root. */
export interface ServiceFacts {
	agentDir: string;
	sessionsDir: string;
	/** The tools sessions get: `grep` only when rg is installed, `find` only when fd is. */
	tools: readonly string[];
	reach: ServiceReach;
}

/** What the doctor needs to know beyond the session. */
export interface DoctorSources {
	/** Absent where no service runs (documentation, tests): those checks are left out. */
	service?: ServiceFacts;
	/** Further checks of features (memory), for the addressed session; one with nothing to check answers undefined. */
	checks?: Array<(session: LoadedSession) => Promise<DoctorCheck | undefined>>;
}

export function doctorCommands(sources: DoctorSources) {
	return [
		defineCommand({
			name: "doctor",
			summary:
				"Checks what the agent needs and says what to fix: a model with credentials, the model reachable (only with " +
				"`checkModel`: it sends the model one tiny request), rg and fd for the grep and find tools, a writable agent " +
				"directory, how the control plane is protected, and the memory backend. Read-only.",
			params: Type.Object(
				{ checkModel: Type.Optional(Type.Boolean({ description: "Also send the session's model one tiny request (costs a request). Default false." })) },
				{ additionalProperties: false },
			),
			result: Type.Object({
				ok: Type.Boolean({ description: "Every check passed." }),
				checks: Type.Array(DoctorCheckSchema),
			}),
			handler: async ({ checkModel }, context) => {
				const session = await context.session();
				const checks: DoctorCheck[] = [modelCheck(session)];
				if (checkModel) checks.push(await reachableCheck(session));
				const { service } = sources;
				if (service) checks.push(...binaryChecks(service.tools), await directoryCheck(service.agentDir, service.sessionsDir), reachCheck(service.reach));
				for (const check of sources.checks ?? []) {
					const found = await check(session);
					if (found) checks.push(found);
				}
				return { ok: checks.every((c) => c.ok), checks };
			},
		}),
	];
}

function modelCheck(session: LoadedSession): DoctorCheck {
	const title = "Model credentials";
	const { model } = session.handle.state();
	const available = session.handle.availableModels();
	if (model && available.some((m) => m.provider === model.provider && m.id === model.id)) {
		return { id: "model", ok: true, title, detail: `The session uses ${model.provider}/${model.id}, which has credentials.` };
	}
	const fix =
		available.length > 0
			? `Choose one of the models with credentials with set_model (for example ${available[0]!.provider}/${available[0]!.id}).`
			: "Set a provider API key in the environment (for example ANTHROPIC_API_KEY or OPENAI_API_KEY), add it to auth.json in the " +
				"agent directory, or define an OpenAI-compatible provider in models.json there; then restart skiff.";
	const detail = model ? `The session's model ${model.provider}/${model.id} has no credentials.` : "The session has no model.";
	return { id: "model", ok: false, title, detail, fix };
}

async function reachableCheck(session: LoadedSession): Promise<DoctorCheck> {
	const title = "The model's answer";
	const { model } = session.handle.state();
	const name = model ? `${model.provider}/${model.id}` : "the model";
	try {
		await session.handle.probeModel();
		return { id: "model_reachable", ok: true, title, detail: `${name} answered a one-line request.` };
	} catch (error) {
		const reason = redactSecrets(error instanceof Error ? error.message : String(error));
		return {
			id: "model_reachable",
			ok: false,
			title,
			detail: `${name} did not answer: ${reason}`,
			fix: "Check the provider's base URL in models.json, the network, and that the API key is valid and has credit.",
		};
	}
}

function binaryChecks(tools: readonly string[]): DoctorCheck[] {
	const check = (id: string, tool: string, binary: string, install: string): DoctorCheck => {
		const title = `The ${tool} tool (${binary})`;
		if (tools.includes(tool)) return { id, ok: true, title, detail: `${binary} is installed: the agent has the ${tool} tool.` };
		return {
			id,
			ok: false,
			title,
			detail: `${binary} was not found on PATH: the agent has no ${tool} tool (it falls back to bash).`,
			fix: `Install ${install}, then restart skiff.`,
		};
	};
	return [check("rg", "grep", "rg", "ripgrep (apt install ripgrep, brew install ripgrep)"), check("fd", "find", "fd", "fd (apt install fd-find, brew install fd)")];
}

/**
 * Writes and removes a small file in each folder: the one way to know that writing works there now (without
 * blocking the service on a slow disk: other clients' commands go on meanwhile).
 */
async function directoryCheck(agentDir: string, sessionsDir: string): Promise<DoctorCheck> {
	const title = "The agent directory";
	for (const dir of [agentDir, sessionsDir]) {
		const probe = join(dir, `.skiff-doctor-${process.pid}-${randomBytes(4).toString("hex")}`);
		try {
			await writeFile(probe, "", { flag: "wx", mode: 0o600 });
			await unlink(probe);
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code ?? "error";
			return {
				id: "agent_dir",
				ok: false,
				title,
				detail: `Cannot write in ${dir} (${code}): sessions, settings and memory cannot be saved.`,
				fix: code === "ENOSPC" ? "Free some disk space." : `Make ${dir} writable by the user running skiff (or choose another with SKIFF_AGENT_DIR).`,
			};
		}
	}
	return { id: "agent_dir", ok: true, title, detail: `${agentDir} and its sessions folder are writable.` };
}

function reachCheck(reach: ServiceReach): DoctorCheck {
	// The title names what is checked and `ok` (with `caution`) gives the verdict: a title saying "protected"
	// beside "any program of any user can drive the agent" read as two verdicts that disagree.
	const title = "Who can drive the agent";
	if (reach.transport === "stdio") {
		return { id: "listener_auth", ok: true, title, detail: "No listener: commands come only over standard input (--mode rpc)." };
	}
	if (reach.loopback && reach.token) return { id: "listener_auth", ok: true, title, detail: `Only programs on this machine that have the token: ${reach.url} is loopback only and needs it.` };
	if (reach.loopback) {
		return {
			id: "listener_auth",
			ok: true,
			caution: true,
			title,
			detail: `Any program of any user on this machine: ${reach.url} is loopback only, without a token.`,
			fix: "If others use this machine, restart with --listen-token-file.",
		};
	}
	if (reach.token) {
		return {
			id: "listener_auth",
			ok: false,
			title,
			detail: `${reach.url} is reachable from the network and needs the token, but traffic (the token included) is plaintext.`,
			fix: "Bind to 127.0.0.1 and reach it through an SSH tunnel or a TLS-terminating proxy.",
		};
	}
	return {
		id: "listener_auth",
		ok: false,
		title,
		detail: `${reach.url} is reachable from the network without a token: anyone who can reach it can run commands as you.`,
		fix: "Restart with --listen-token-file, or bind to 127.0.0.1.",
	};
}
