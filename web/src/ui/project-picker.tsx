/**
 * Starting a session in another project: a button (in the Sessions panel) opening a dialog that lists the
 * folders that have sessions, most recently active first (the shown session's own folder too), and a field for
 * any other path. The service checks the folder (it must exist, be a directory and be readable); its refusal is
 * shown under the field, which keeps what was typed.
 */
import { useRef, useState } from "preact/hooks";
import type { Controller } from "../state/controller";
import { activeTime, folderName, relativeTime } from "../state/session-title";
import { Dialog } from "./dialog";

interface Project {
	cwd: string;
	sessions: number;
	active: number;
}

/** The folders of the listed sessions, each once, most recently active first. */
function projectsOf(controller: Controller): Project[] {
	const found = new Map<string, Project>();
	const add = (cwd: string, active: number, count: number) => {
		const project = found.get(cwd) ?? { cwd, sessions: 0, active: 0 };
		project.sessions += count;
		project.active = Math.max(project.active, active);
		found.set(cwd, project);
	};
	for (const row of controller.state.sessions.all) add(row.cwd, activeTime(row), 1);
	if (controller.state.session) add(controller.state.session.cwd, 0, 0);
	return [...found.values()].sort((a, b) => b.active - a.active);
}

export function ProjectButton({ controller, done }: { controller: Controller; done(): void }) {
	const [open, setOpen] = useState(false);
	return (
		<>
			<button type="button" class="small" disabled={!controller.state.ready} aria-haspopup="dialog" title="Start a new session in another project's folder" onClick={() => setOpen(true)}>
				New in…
			</button>
			{open && <ProjectPicker controller={controller} onClose={(started) => (setOpen(false), started && done())} />}
		</>
	);
}

function ProjectPicker({ controller, onClose }: { controller: Controller; onClose(started: boolean): void }) {
	const [path, setPath] = useState("");
	const [error, setError] = useState<string>();
	const [busy, setBusy] = useState(false);
	const started = useRef(false);
	const start = async (cwd: string) => {
		setBusy(true);
		const refused = await controller.newSession(cwd);
		setBusy(false);
		setError(refused);
		if (refused) return;
		started.current = true;
		document.querySelector<HTMLDialogElement>("dialog.projects")?.close();
	};
	const current = controller.state.session?.cwd;
	return (
		<Dialog id="projects" title="New session in a project" class="projects" onClose={() => onClose(started.current)}>
			<form
				class="dialog-body project-path"
				onSubmit={(e) => {
					e.preventDefault();
					if (path.trim()) void start(path.trim());
					else setError("Type a folder's path, or choose a project below.");
				}}
			>
				<label class="field">
					<span>Folder</span>
					<input data-autofocus value={path} placeholder="/home/me/projects/app" spellcheck={false} aria-invalid={error ? "true" : undefined} aria-describedby="projects-error" onInput={(e) => setPath((e.target as HTMLInputElement).value)} />
				</label>
				<button type="submit" class="primary" disabled={busy}>
					Start
				</button>
				<p id="projects-error" class="error-text" role="alert">
					{error}
				</p>
			</form>
			<ul class="project-list" aria-label="Projects with sessions">
				{projectsOf(controller).map((project) => (
					<li key={project.cwd}>
						<button type="button" class="ghost" disabled={busy} onClick={() => void start(project.cwd)}>
							<span class="option-title">
								{folderName(project.cwd)}
								{project.cwd === current && <span class="tag">current</span>}
							</span>
							<span class="option-meta">{project.cwd}</span>
							<span class="option-meta">{project.sessions === 0 ? "no sessions recorded" : `${project.sessions} session${project.sessions === 1 ? "" : "s"} · ${relativeTime(project.active)}`}</span>
						</button>
					</li>
				))}
			</ul>
		</Dialog>
	);
}
