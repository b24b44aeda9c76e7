/**
 * The heavy half of the composition root, loaded after the listener is up: the settings, pi, the memory
 * subsystem, the runtime manager, the event streams, every command and the dispatcher. Loading pi takes about a second;
 * nothing here is imported before the start-up banner.
 */
import { createPiRuntime } from "./agent/pi/index.js";
import { RuntimeManager, type StartupSession } from "./agent/runtime-manager.js";
import type { ThinkingLevel } from "./agent/types.js";
import { collabUpdated } from "./collab/events.js";
import type { CollabRooms } from "./collab/rooms.js";
import { createCommandRegistry, createSettingsCatalog } from "./contract.js";
import { GoalService } from "./features/goal/service.js";
import { loadCatalog } from "./features/jobs/definitions.js";
import { JobService } from "./features/jobs/job-service.js";
import { JobStore } from "./features/jobs/job-store.js";
import { jobLimitsFrom } from "./features/jobs/settings.js";
import { PersonaStore } from "./features/personas/persona-store.js";
import { combineSessionFeatures } from "./features/session-features.js";
import { valuesOf } from "./features/settings/effective-settings.js";
import { sessionSettingsConsumer } from "./features/settings/session-consumer.js";
import { SettingsService } from "./features/settings/settings-service.js";
import { SideChatService } from "./features/side-chat/side-chat-service.js";
import { TodoService } from "./features/todo/service.js";
import { workflowLimitsFrom } from "./features/workflows/settings.js";
import { WorkflowService } from "./features/workflows/workflow-service.js";
import { WorkflowStore } from "./features/workflows/workflow-store.js";
import { MemoryService } from "./memory/memory-service.js";
import { memorySettingsConsumer, projectMemorySettings } from "./memory/settings-consumer.js";
import { loadMemorySettings } from "./memory/settings.js";
import type { ServiceReach } from "./protocol/commands/doctor.js";
import { createDispatcher, type Dispatcher } from "./protocol/dispatch.js";
import { EventStreams } from "./protocol/event-streams.js";

export interface CoreConfig {
	agentDir: string;
	cwd: string;
	session: StartupSession;
	model?: string;
	thinking?: ThinkingLevel;
	maxSessions?: number;
	/** How clients reach the service (for `doctor`); standard input and output when absent. */
	reach?: ServiceReach;
	/** The listener's collaboration rooms (absent in `--mode rpc`, where the collab commands are unavailable). */
	collab?: CollabRooms;
}

export interface Core {
	readonly runtime: RuntimeManager;
	readonly dispatcher: Dispatcher;
	/** Problems worth telling the operator at start-up (never secrets). */
	readonly warnings: string[];
	/** Loads provider SDKs in the background (see provider-warmup). */
	warmUp(): void;
}

export async function loadCore(config: CoreConfig): Promise<Core> {
	const log = (line: string) => process.stderr.write(`${line}\n`);
	// Invalid settings stop start-up with a message naming the file and its position, or the key.
	const settings = new SettingsService({ agentDir: config.agentDir, catalog: createSettingsCatalog(), log });
	settings.checkGlobal();
	const memorySettings = loadMemorySettings(config.agentDir); // also resolves the token's $VAR
	const pi = createPiRuntime({ agentDir: config.agentDir, model: config.model });
	const memory = new MemoryService(config.agentDir, memorySettings, {
		log,
		projectSettings: (cwd) => projectMemorySettings(settings, cwd, log),
	});
	const todo = new TodoService();
	const goal = new GoalService();
	// What runs on settings: every session (new ones read them as they open) and memory.
	settings.addConsumer(sessionSettingsConsumer({ log }));
	settings.addConsumer(memorySettingsConsumer(memory));
	const runtime = new RuntimeManager({
		cwd: config.cwd,
		catalog: pi.catalog,
		openSession: (source, options) => pi.openSession(source, { ...options, settings: (cwd) => settings.sessionSettings(cwd) }),
		sessionFeatures: (origin) => {
			const memoryFeatures = memory.forSession(origin);
			const todoFeatures = todo.forSession();
			// A job's child (a session with a profile) gets the tools its definition allows, memory and a todo plan
			// (a workflow's supervisor plans with it); the goal and delegation (`task`) belong to top-level sessions.
			if (origin.profile) {
				return {
					...combineSessionFeatures([memoryFeatures, todoFeatures]),
					attach: (sessionId: string) => {
						memory.attach(sessionId, memoryFeatures);
						todo.attach(sessionId, todoFeatures);
					},
				};
			}
			const goalFeatures = goal.forSession();
			const task = [jobs.taskTool(origin.sessionId)];
			const delegation = { tools: task, activeToolNames: () => task.map((t) => t.name), contextForPrompt: async () => undefined };
			return {
				...combineSessionFeatures([memoryFeatures, goalFeatures, todoFeatures, delegation]),
				attach: (sessionId: string) => {
					memory.attach(sessionId, memoryFeatures);
					todo.attach(sessionId, todoFeatures);
					goal.attach(sessionId, goalFeatures);
				},
			};
		},
		maxLoadedSessions: config.maxSessions,
		thinkingLevel: config.thinking,
	});
	const streams = new EventStreams(runtime); // observes from the first session on
	const personas = new PersonaStore({ agentDir: config.agentDir, trusted: (cwd) => settings.effective(cwd).trusted, knownTools: pi.tools });
	const jobs = new JobService({
		runtime,
		store: new JobStore(config.agentDir),
		publish: (id, event) => streams.hub(id).publish(event),
		limits: () => jobLimitsFrom(valuesOf(settings.effective())),
		catalog: (cwd) => loadCatalog({ agentDir: config.agentDir, cwd, trusted: settings.effective(cwd).trusted, knownTools: pi.tools }),
		personas,
		warn: log,
	});
	const workflows = new WorkflowService({
		store: new WorkflowStore(config.agentDir),
		jobs,
		observe: (observer) => runtime.observe(observer),
		planOf: (sessionId) => {
			try {
				return todo.of(sessionId).plan();
			} catch {
				return undefined;
			}
		},
		// Workflows are the service's: every loaded session hears of them.
		publish: (event) => {
			for (const session of runtime.loadedSessions()) streams.hub(session.id).publish(event);
		},
		limits: () => workflowLimitsFrom(valuesOf(settings.effective())),
		knownTools: pi.tools,
		warn: log,
	});
	const sideChats = new SideChatService({ observe: (observer) => runtime.observe(observer), publish: (id, event) => streams.hub(id).publish(event) });
	config.collab?.onChange((change) => streams.hub(change.room.sessionId).publish(collabUpdated(change)));
	await runtime.start(config.session);
	const service = { agentDir: config.agentDir, sessionsDir: pi.sessionsDir, tools: pi.tools, reach: config.reach ?? { transport: "stdio" as const } };
	const dispatcher = createDispatcher(createCommandRegistry({ memory, settings, sideChats, jobs, personas, todo, goal, workflows, service, collab: config.collab }), { runtime, streams });
	return { runtime, dispatcher, warnings: [...pi.warnings], warmUp: () => pi.warmUp() };
}
