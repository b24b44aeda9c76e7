/**
 * Sharing the current session (docs/collab.md): the header's Share button, which says how many guests are
 * connected, and the Share dialog: start a room, copy its control or view link (each saying what it grants),
 * see who is connected by role as it changes (collab_updated), and stop sharing.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { Controller } from "../state/controller";
import type { SharedRoom } from "../state/collab-state";
import { Dialog } from "./dialog";
import { Icon } from "./icons";

/** How long "Copied" shows on a copy button. */
const COPIED_MS = 2000;

/** The header's Share button; reads the rooms once the page is bound (and again for another session). */
export function ShareButton({ controller, onOpen }: { controller: Controller; onOpen(): void }) {
	const { ready, sessionId } = controller.state;
	const collab = controller.collab;
	useEffect(() => {
		if (ready) void collab.refresh();
	}, [ready, sessionId]);
	if (!ready) return null;
	const shared = collab.current().length > 0;
	const { control, view } = collab.guests();
	const guests = control + view;
	const label = shared ? `Shared, ${guests === 1 ? "1 guest" : `${guests} guests`} connected` : "Share this session";
	return (
		<button type="button" class={`share-button ghost small${shared ? " shared" : ""}`} onClick={onOpen} aria-label={label} title={label} aria-haspopup="dialog">
			<Icon name="share" />
			<span class="label">{shared ? "Shared" : "Share"}</span>
			{shared && <span class="count">{guests}</span>}
		</button>
	);
}

export function ShareDialog({ controller, onClose }: { controller: Controller; onClose(): void }) {
	const collab = controller.collab;
	const rooms = collab.current();
	return (
		<Dialog id="share" class="share" title="Share this session" onClose={onClose}>
			<div class="dialog-body">
				{rooms.length === 0 ? (
					<div class="share-start">
						<p>
							People you send a link to follow this session live in their browser. The <strong>control link</strong> also lets them send prompts, steer
							and stop the run; the <strong>view link</strong> only lets them watch.
						</p>
						<p class="hint">Everything they see is encrypted end to end with a key that is only in the link. Stopping sharing disconnects them at once.</p>
						<button type="button" class="primary" data-autofocus disabled={collab.busy} onClick={() => void collab.start()}>
							<Icon name="share" />
							Start sharing
						</button>
					</div>
				) : (
					rooms.map((room) => <RoomView key={room.roomId} controller={controller} room={room} />)
				)}
				{collab.error && (
					<p class="error-text" role="alert">
						{collab.error}
					</p>
				)}
			</div>
		</Dialog>
	);
}

function RoomView({ controller, room }: { controller: Controller; room: SharedRoom }) {
	const collab = controller.collab;
	return (
		<div class="share-room" data-room={room.roomId}>
			<LinkRow
				role="control"
				title="Control link"
				grants="Can watch, send prompts, steer and stop the run, as you can: its holder can make the agent run commands on this machine. Share it only with people you trust."
				link={room.controlLink}
			/>
			<LinkRow role="view" title="View link" grants="Can only watch the conversation as it happens." link={room.viewLink} />
			<section class="share-guests" aria-label="Connected guests">
				<h3>Connected</h3>
				<GuestCount room={room} />
			</section>
			<div class="share-stop">
				<button type="button" class="danger" disabled={collab.busy} onClick={() => void collab.stop(room.roomId)}>
					Stop sharing
				</button>
				<span class="hint">Guests are disconnected and both links stop working.</span>
			</div>
		</div>
	);
}

/** Who is connected, by role; live (the count changes as collab_updated arrives). */
function GuestCount({ room }: { room: SharedRoom }) {
	if (room.controlGuests + room.viewGuests === 0) return <p class="hint share-count">No one has joined yet.</p>;
	return (
		<ul class="share-count" aria-live="polite">
			<li data-role="control">
				<strong>{room.controlGuests}</strong> with control
			</li>
			<li data-role="view">
				<strong>{room.viewGuests}</strong> watching
			</li>
		</ul>
	);
}

function LinkRow(props: { role: "control" | "view"; title: string; grants: string; link: string }) {
	const input = useRef<HTMLInputElement>(null);
	const [copied, setCopied] = useState(false);
	useEffect(() => {
		if (!copied) return;
		const timer = setTimeout(() => setCopied(false), COPIED_MS);
		return () => clearTimeout(timer);
	}, [copied]);
	const id = `share-${props.role}`;
	return (
		<div class={`share-link ${props.role}`}>
			<label for={id}>{props.title}</label>
			<p class="hint" id={`${id}-grants`}>
				{props.grants}
			</p>
			<div class="share-copy">
				<input id={id} ref={input} readOnly value={props.link} aria-describedby={`${id}-grants`} onFocus={(e) => (e.target as HTMLInputElement).select()} />
				<button type="button" class="copy" onClick={() => void copyText(props.link, input.current).then(setCopied)} aria-label={`Copy the ${props.title.toLowerCase()}`}>
					<Icon name="copy" />
					<span aria-live="polite">{copied ? "Copied" : "Copy"}</span>
				</button>
			</div>
		</div>
	);
}

/** Copies with the Clipboard API, else (an http page on a LAN address has none) by selecting the field. */
async function copyText(text: string, field: HTMLInputElement | null): Promise<boolean> {
	try {
		await navigator.clipboard.writeText(text);
		return true;
	} catch {
		field?.select();
		return document.execCommand("copy");
	}
}
