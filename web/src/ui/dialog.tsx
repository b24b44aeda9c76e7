/**
 * A modal dialog on the native <dialog>: the rest of the page is inert while it is open (focus stays inside),
 * Esc, the Close button and a click on the backdrop close it, and the owner moves focus back (to the composer).
 */
import type { ComponentChildren } from "preact";
import { useLayoutEffect, useRef } from "preact/hooks";
import { Icon } from "./icons";

export function Dialog(props: { id: string; title: string; class?: string; onClose(): void; children: ComponentChildren }) {
	const dialog = useRef<HTMLDialogElement>(null);
	useLayoutEffect(() => {
		const el = dialog.current!;
		el.showModal();
		el.querySelector<HTMLElement>("[data-autofocus]")?.focus();
	}, []);
	return (
		<dialog
			ref={dialog}
			class={props.class}
			aria-labelledby={`${props.id}-title`}
			onClose={props.onClose}
			onClick={(e) => {
				if (e.target === dialog.current) dialog.current?.close(); // the backdrop
			}}
		>
			<div class="dialog-head">
				<h2 id={`${props.id}-title`}>{props.title}</h2>
				<button type="button" class="ghost icon" aria-label="Close" onClick={() => dialog.current?.close()}>
					<Icon name="close" />
				</button>
			</div>
			{props.children}
		</dialog>
	);
}
