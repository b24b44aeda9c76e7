/** The status pill, and the token field with its Connect button. The token is kept in sessionStorage only. */
import { useState } from "preact/hooks";
import type { Controller } from "../state/controller";

export function StatusPill({ status }: { status: string }) {
	return (
		<span class={`pill ${status}`} data-status={status} role="status">
			{status}
		</span>
	);
}

export function TokenForm({ controller }: { controller: Controller }) {
	const [token, setToken] = useState("");
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
				type="password"
				autoComplete="off"
				placeholder={controller.state.hasToken ? "Token saved for this tab" : "Access token (if required)"}
				value={token}
				onInput={(e) => setToken((e.target as HTMLInputElement).value)}
				aria-label="Access token"
			/>
			<button type="submit">Connect</button>
		</form>
	);
}
