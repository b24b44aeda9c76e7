/** The changes feature's event: the working directory may have changed, so a Changes panel lists it again. */
import { defineEvent } from "../../protocol/event.js";

export const changesUpdatedEvent = defineEvent(
	"changes_updated",
	"The session's working directory may have changed: after a tool call that may write files (anything but read, grep, " +
		"find and ls), a shell command of the user (`bash`), or a revert. Sent once for a burst (300 ms after its last " +
		"call, and at least every 2 s while it goes on), so a panel calls changes_get again instead of polling.",
	{},
);

export const changesEvents = [changesUpdatedEvent];
