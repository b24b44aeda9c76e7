/**
 * The page at a collaboration link (`/collab/ws/<roomId>#c=…` or `#v=…`, docs/collab.md): a guest follows one
 * shared session. It says that this is a guest, with which role, and how the connection stands; shows the
 * session's transcript live with the host page's own components (the same markdown and redaction); gives a
 * control guest the composer (prompt, steer during a run, abort) and a view guest none. No token, no panels,
 * no other session: a guest can do nothing else.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useMemo, useReducer } from "preact/hooks";
import { redact } from "../render/redact";
import { GuestSession } from "../state/guest-state";
import { Composer } from "./composer";
import { Brand } from "./header";
import { LiveRegion, Toasts } from "./toasts";
import { TranscriptView } from "./transcript-view";

/** The role as the header's badge says it, after "Guest": what it allows. */
const ROLE_LABEL = { control: "can control", view: "view only" } as const;

export function GuestView() {
	const guest = useMemo(() => new GuestSession(), []);
	const [, rerender] = useReducer((n: number) => n + 1, 0);
	useEffect(() => {
		const unsubscribe = guest.subscribe(() => rerender(undefined));
		guest.start();
		return unsubscribe;
	}, [guest]);

	const { linkError, connection, session, omittedMessages, toasts, announcement } = guest.state;
	const transcript = guest.transcript;
	const status = connection?.status ?? "failed";
	const role = connection?.role;
	const running = Boolean(transcript?.running) && status === "connected";
	const over = status === "ended" || status === "failed";

	let body: ComponentChildren;
	if (linkError) body = <GuestCard title="This link cannot be opened" text={linkError} />;
	else if (!transcript) {
		body =
			status === "failed" || status === "ended" ? (
				<GuestCard title={status === "failed" ? "Not joined" : "Sharing has ended"} text={connection?.detail ?? ""} />
			) : (
				<p class="empty waiting">Joining the shared session…</p>
			);
	}

	return (
		<div class="app guest" data-run={running ? "running" : "idle"} data-role={role} data-status={status}>
			<div class="main">
				<header class="top">
					<Brand />
					{connection && (
						<span class={`pill ${status === "connected" || status === "connecting" || status === "reconnecting" ? status : "offline"}`} data-status={status}>
							<span class="label">{status}</span>
						</span>
					)}
					{transcript && <div class="title">{redact(guest.title())}</div>}
					{running && <span class="badge streaming">working</span>}
					<div class="spacer" />
					{session?.model && <span class="guest-model">{session.model.name ?? session.model.id}</span>}
					{/* On a phone only "Guest" shows (the title needs the room); the role stays in the tooltip and is read out. */}
					<span class="guest-role" data-role={role} title={role ? `Guest · ${ROLE_LABEL[role]}` : undefined}>
						Guest{role && <span class="role"> · {ROLE_LABEL[role]}</span>}
					</span>
				</header>
				{transcript && connection && status !== "connected" && (
					<div class={`connection ${over ? "offline" : status}${status === "failed" ? " refused" : ""}`} role="status" aria-label="Connection">
						<span class="detail">
							{connection.detail}
							{status === "ended" && transcript && " What you saw stays here until you close the page."}
						</span>
					</div>
				)}
				{body ?? (
					<TranscriptView
						transcript={transcript!}
						version={transcript!.version}
						notice={<SnapshotNotice omitted={omittedMessages} empty={transcript!.messages.length === 0 && !transcript!.streaming} />}
					/>
				)}
				{role === "control" && transcript && !over && (
					<Composer
						draft=""
						running={running}
						ready={status === "connected"}
						placeholder={running ? "Steer the agent…" : "Ask the agent in this shared session…"}
						idleHint="the host sees what you send"
						onDraft={() => undefined}
						onSend={(text) => guest.send(text)}
						onAbort={() => guest.abort()}
						onDismissNote={() => undefined}
					/>
				)}
				{role === "view" && transcript && !over && <p class="guest-footer">You are watching. This view link cannot send messages.</p>}
				<Toasts toasts={toasts} onDismiss={(id) => guest.dismissToast(id)} />
			</div>
			<LiveRegion announcement={announcement} />
		</div>
	);
}

function GuestCard({ title, text }: { title: string; text: string }) {
	return (
		<div class="chat">
			<div class="transcript">
				<div class="transcript-content">
					<div class="guest-card" role="alert">
						<h2>{title}</h2>
						<p>{text}</p>
					</div>
				</div>
			</div>
		</div>
	);
}

/** Above the shared transcript: what the host left out of the snapshot, or that nothing has been said yet. */
function SnapshotNotice({ omitted, empty }: { omitted: number; empty: boolean }) {
	if (omitted > 0) return <p class="guest-omitted">{omitted === 1 ? "1 earlier message is" : `${omitted} earlier messages are`} not shown here.</p>;
	if (!empty) return null;
	return (
		<div class="empty">
			<strong>Nothing said yet</strong>
			<span>The conversation appears here as it happens.</span>
		</div>
	);
}
