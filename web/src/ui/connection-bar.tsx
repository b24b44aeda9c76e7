/**
 * The status pill, and the connection bar shown inside the main column while not connected: one sentence, the
 * retry countdown (the only place it is shown), Retry now, and the token field with Connect when the service
 * wants a token or one is saved. The token is kept in sessionStorage only.
 */
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { Controller } from "../state/controller";

export function StatusPill({ status }: { status: string }) {
	return (
		<span class={`pill ${status}`} data-status={status}>
			<span class="label">{status}</span>
		</span>
	);
}

export function ConnectionBar({ controller }: { controller: Controller }) {
	const { status, statusDetail, retryAt, tokenNeeded, tokenRefused, hasToken } = controller.state;
	if (status === "connected" || (status === "connecting" && !tokenNeeded)) return null;
	const tokenForm = tokenNeeded || hasToken;
	return (
		<div class={`connection ${status}${tokenRefused ? " refused" : ""}`} role="region" aria-label="Connection">
			<span class="detail">
				{statusDetail}
				{status === "reconnecting" && (retryAt ? <Countdown at={retryAt} /> : " Reconnecting…")}
			</span>
			{status === "reconnecting" && (
				<button type="button" class="small retry" onClick={() => controller.retryNow()}>
					Retry now
				</button>
			)}
			{tokenForm && <TokenForm controller={controller} focus={tokenNeeded} reason={statusDetail} />}
		</div>
	);
}

/** "Reconnecting in 3 s.", counting down to the client's next attempt. */
function Countdown({ at }: { at: number }) {
	const [, tick] = useState(0);
	const left = Math.max(1, Math.ceil((at - Date.now()) / 1000));
	useEffect(() => {
		const timer = setTimeout(() => tick((n) => n + 1), Math.max(0, at - Date.now() - (left - 1) * 1000));
		return () => clearTimeout(timer);
	});
	return <> Reconnecting in {left} s.</>;
}

/** The token field: focused when a token is needed, and again after each refusal (`reason` changes). */
export function TokenForm({ controller, focus, reason }: { controller: Controller; focus: boolean; reason?: string }) {
	const [token, setToken] = useState("");
	const input = useRef<HTMLInputElement>(null);
	useLayoutEffect(() => {
		if (focus) input.current?.focus();
	}, [focus, reason]);
	return (
		<form
			class="token"
			onSubmit={(e) => {
				e.preventDefault();
				controller.connectWithToken(token);
				setToken("");
			}}
		>
			<input
				ref={input}
				type="password"
				autoComplete="off"
				placeholder={controller.state.hasToken ? "A token is saved for this tab" : "Access token"}
				value={token}
				onInput={(e) => setToken((e.target as HTMLInputElement).value)}
				aria-label="Access token"
			/>
			<button type="submit" class="primary">
				Connect
			</button>
		</form>
	);
}
