/**
 * What the settings commands return, as TypeBox schemas (documented in docs/protocol.md, checked against
 * real responses in the tests); the service's types are derived from them.
 */
import { type Static, Type } from "typebox";
import { SETTING_APPLIES, SETTING_SCOPES } from "./definition.js";
import { SETTING_SOURCES } from "./effective-settings.js";

export const SettingScopeSchema = Type.Enum(SETTING_SCOPES, { title: "SettingScope" });
const Keys = (description: string) => Type.Array(Type.String(), { description });
const Value = (description: string) => Type.Optional(Type.Unknown({ description }));

export const SettingProblemSchema = Type.Object(
	{ key: Type.String(), message: Type.String({ description: "What is wrong, naming the key (and the file)." }) },
	{ title: "SettingProblem" },
);

/** One key of the catalog with its values, as settings_inspect shows it. */
export const SettingViewSchema = Type.Object(
	{
		key: Type.String({ description: "Dotted path in the settings file (`compaction.enabled`)." }),
		category: Type.String(),
		description: Type.String(),
		type: Type.Enum(["boolean", "integer", "string", "enum", "list", "object"], {
			description: "Which editor fits: a list's items may be limited to `enum`; an `object` (mcpServers) is edited as JSON.",
		}),
		allowed: Type.String({ description: "What the key accepts, in words (`an integer from 1 to 1000000`)." }),
		enum: Type.Optional(Type.Array(Type.String(), { description: "The allowed values (of the items, for a list)." })),
		minimum: Type.Optional(Type.Number()),
		maximum: Type.Optional(Type.Number()),
		default: Value("The value when no file sets it (absent: unset)."),
		scopes: Type.Array(SettingScopeSchema, { description: "Where it may be set." }),
		applies: Type.Enum(SETTING_APPLIES, { description: "When a change takes effect: at once, in new sessions, or after a restart." }),
		secret: Type.Boolean({ description: "Values are shown only as the redaction marker; only a `$VAR` reference may be set." }),
		source: Type.Enum(SETTING_SOURCES, { description: "Where the effective value comes from (`runtime`: this session switched it with a command)." }),
		effectiveValue: Value("The value that counts for the addressed session (absent: unset)."),
		globalValue: Value("What the global file holds."),
		projectValue: Value("What the project file holds (only for a trusted project)."),
		editableGlobal: Type.Boolean({ description: "A global draft may change it." }),
		editableProject: Type.Boolean({ description: "A project draft may change it (the key allows it and the project is trusted)." }),
	},
	{ title: "SettingView" },
);

export const InspectResultSchema = Type.Object(
	{
		cwd: Type.String({ description: "The addressed session's working directory." }),
		globalPath: Type.String(),
		projectFolder: Type.String({ description: "The project: the session's working directory, symbolic links resolved." }),
		projectPath: Type.String({ description: "`<project>/.skiff/settings.json`." }),
		projectTrusted: Type.Boolean(),
		globalError: Type.Optional(Type.String({ description: "Why the global file cannot be read (it is then ignored)." })),
		projectError: Type.Optional(Type.String({ description: "Why the trusted project's file cannot be read (it is then ignored)." })),
		problems: Type.Array(SettingProblemSchema, { description: "Values in the files that are ignored because they do not fit." }),
		values: Type.Array(SettingViewSchema),
	},
	{ title: "SettingsInspection" },
);

export const DraftViewSchema = Type.Object(
	{
		draftId: Type.String(),
		scope: SettingScopeSchema,
		path: Type.String({ description: "The file the draft writes." }),
		values: Type.Record(Type.String(), Type.Unknown(), {
			description: "Every catalog key the file will set, with the draft's changes (secrets as the redaction marker).",
		}),
		changed: Keys("Keys whose value the draft changes."),
		problems: Type.Array(SettingProblemSchema, { description: "What would stop settings_apply (empty: it may be applied)." }),
	},
	{ title: "SettingsDraft" },
);

const ApplyOutcome = {
	keys: Keys("Keys whose value changed."),
	appliedLive: Keys("Changed keys that took effect at once in loaded sessions."),
	newSessions: Keys("Changed keys that take effect in sessions created from now on."),
	restartRequired: Keys("Changed keys that take effect when the service starts again."),
};

export const ApplyResultSchema = Type.Object(
	{ scope: SettingScopeSchema, path: Type.String({ description: "The file written (unchanged when no key changed)." }), ...ApplyOutcome },
	{ title: "SettingsApplyResult" },
);

export const TrustResultSchema = Type.Object(
	{
		projectFolder: Type.String(),
		projectPath: Type.String(),
		trusted: Type.Boolean(),
		...ApplyOutcome,
	},
	{ title: "ProjectTrustResult" },
);

export type SettingView = Static<typeof SettingViewSchema>;
export type Inspection = Static<typeof InspectResultSchema>;
export type DraftView = Static<typeof DraftViewSchema>;
export type ApplyResult = Static<typeof ApplyResultSchema>;
export type TrustResult = Static<typeof TrustResultSchema>;
