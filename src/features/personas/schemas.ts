/** The shapes of the personas' commands: a persona as listed. The store returns exactly these rows. */
import { type Static, Type } from "typebox";

export const PersonaRowSchema = Type.Object(
	{
		name: Type.String(),
		scope: Type.Enum(["user", "project"], { description: "The user's personas, or a trusted project's." }),
		defined: Type.Boolean({ description: "Its persona.md exists (false: removed; memory and sessions remain until purged)." }),
		description: Type.Optional(Type.String()),
		model: Type.Optional(Type.String()),
		memoryEntries: Type.Integer({ minimum: 0, description: "Entries of its local memory." }),
		sessionCount: Type.Integer({ minimum: 0, description: "Archived run transcripts (its continuity)." }),
		error: Type.Optional(Type.String({ description: "Why it cannot be run." })),
	},
	{ title: "PersonaRow" },
);
/** A persona as listed (no absolute paths). */
export type PersonaRow = Static<typeof PersonaRowSchema>;
export type PersonaScope = PersonaRow["scope"];
