/**
 * Markdown to Preact elements, safely: the text is redacted first, every string becomes a text node, links
 * and images pass the URL rules of safe-url.ts, and nothing is ever parsed as HTML (raw HTML in the source
 * shows as text). Covers what model replies use: fences, headings, lists, quotes, tables, rules, and
 * inline code, emphasis, links and images. An unclosed fence (mid-stream) renders as code so far.
 */
import type { ComponentChildren, VNode } from "preact";
import { useState } from "preact/hooks";
import { highlight } from "./highlight";
import { redact } from "./redact";
import { safeImageSrc, safeLinkHref } from "./safe-url";

export function Markdown({ text }: { text: string }) {
	return <div class="md">{renderBlocks(redact(text))}</div>;
}

function renderBlocks(source: string): VNode[] {
	const lines = source.replace(/\r\n?/g, "\n").split("\n");
	const out: VNode[] = [];
	let i = 0;
	const key = () => out.length;
	while (i < lines.length) {
		const line = lines[i]!;
		const fence = /^\s{0,3}(```+|~~~+)\s*([\w+#.-]*)/.exec(line);
		if (fence) {
			const body: string[] = [];
			i++;
			while (i < lines.length && !lines[i]!.trimStart().startsWith(fence[1]!)) body.push(lines[i++]!);
			i++; // the closing fence (or the end)
			out.push(<CodeBlock key={key()} code={body.join("\n")} language={fence[2] ?? ""} />);
			continue;
		}
		if (!line.trim()) {
			i++;
			continue;
		}
		const heading = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
		if (heading) {
			const Tag = `h${Math.min(heading[1]!.length + 2, 6)}` as "h3";
			out.push(<Tag key={key()}>{renderInline(heading[2]!)}</Tag>);
			i++;
			continue;
		}
		if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
			out.push(<hr key={key()} />);
			i++;
			continue;
		}
		if (/^\s{0,3}>/.test(line)) {
			const quoted: string[] = [];
			while (i < lines.length && /^\s{0,3}>/.test(lines[i]!)) quoted.push(lines[i++]!.replace(/^\s{0,3}>\s?/, ""));
			out.push(<blockquote key={key()}>{renderBlocks(quoted.join("\n"))}</blockquote>);
			continue;
		}
		const listItem = /^(\s*)([-*+]|\d{1,9}[.)])\s+/;
		if (listItem.test(line)) {
			const ordered = /\d/.test(listItem.exec(line)![2]!);
			const items: string[][] = [];
			while (i < lines.length && (listItem.test(lines[i]!) || (/^\s{2,}\S/.test(lines[i]!) && items.length > 0))) {
				const current = lines[i++]!;
				if (listItem.test(current) && !/^\s{2,}/.test(current)) items.push([current.replace(listItem, "")]);
				else items[items.length - 1]!.push(current.replace(/^\s{2,4}/, ""));
			}
			const children = items.map((item, n) => <li key={n}>{item.length === 1 ? renderInline(item[0]!) : renderBlocks(item.join("\n"))}</li>);
			out.push(ordered ? <ol key={key()}>{children}</ol> : <ul key={key()}>{children}</ul>);
			continue;
		}
		if (line.includes("|") && i + 1 < lines.length && /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(lines[i + 1]!)) {
			const header = splitRow(line);
			i += 2;
			const rows: string[][] = [];
			while (i < lines.length && lines[i]!.includes("|") && lines[i]!.trim()) rows.push(splitRow(lines[i++]!));
			out.push(
				<div class="table-wrap" key={key()}>
					<table>
						<thead>
							<tr>{header.map((cell, n) => <th key={n}>{renderInline(cell)}</th>)}</tr>
						</thead>
						<tbody>
							{rows.map((row, r) => (
								<tr key={r}>{row.map((cell, n) => <td key={n}>{renderInline(cell)}</td>)}</tr>
							))}
						</tbody>
					</table>
				</div>,
			);
			continue;
		}
		const paragraph: string[] = [];
		while (i < lines.length && lines[i]!.trim() && !startsBlock(lines[i]!)) paragraph.push(lines[i++]!);
		if (paragraph.length === 0) paragraph.push(lines[i++]!);
		out.push(<p key={key()}>{renderInline(paragraph.join("\n"))}</p>);
	}
	return out;
}

function startsBlock(line: string): boolean {
	return /^\s{0,3}(```|~~~|#{1,6}\s|>|([-*_])(\s*\2){2,}\s*$)/.test(line) || /^\s*([-*+]|\d{1,9}[.)])\s+/.test(line);
}

function splitRow(line: string): string[] {
	return line.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map((c) => c.trim());
}

const INLINE = new RegExp(
	[
		String.raw`(\x60+)([\s\S]*?[^\x60])\1(?!\x60)`, // 1,2 code
		String.raw`!\[([^\]]*)\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)`, // 3,4 image
		String.raw`\[([^\]]+)\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)`, // 5,6 link
		String.raw`\*\*(?=\S)([\s\S]*?\S)\*\*`, // 7 strong
		String.raw`__(?=\S)([\s\S]*?\S)__`, // 8 strong
		String.raw`\*(?=[^\s*])([^*]*?[^\s*])\*`, // 9 em
		String.raw`(?<![\w])_(?=[^\s_])([^_]*?[^\s_])_(?![\w])`, // 10 em
		String.raw`~~(?=\S)([\s\S]*?\S)~~`, // 11 del
		String.raw`<((?:https?|mailto):[^>\s]+)>`, // 12 autolink
		String.raw`(https?:\/\/[^\s<>"']*[^\s<>"'.,;:!?)\]])`, // 13 bare URL
	].join("|"),
	"g",
);

function renderInline(text: string): ComponentChildren[] {
	const out: ComponentChildren[] = [];
	let last = 0;
	for (const m of text.matchAll(INLINE)) {
		const index = m.index ?? 0;
		if (index > last) out.push(...withBreaks(text.slice(last, index)));
		const k = out.length;
		if (m[2] !== undefined) out.push(<code key={k}>{m[2]}</code>);
		else if (m[4] !== undefined) {
			const src = safeImageSrc(m[4]);
			out.push(src ? <img key={k} src={src} alt={m[3]} /> : <span key={k} class="blocked">[image: {m[3] || "blocked"}]</span>);
		} else if (m[6] !== undefined) out.push(link(k, m[6], renderInline(m[5]!)));
		else if (m[7] !== undefined || m[8] !== undefined) out.push(<strong key={k}>{renderInline((m[7] ?? m[8])!)}</strong>);
		else if (m[9] !== undefined || m[10] !== undefined) out.push(<em key={k}>{renderInline((m[9] ?? m[10])!)}</em>);
		else if (m[11] !== undefined) out.push(<del key={k}>{renderInline(m[11])}</del>);
		else if (m[12] !== undefined) out.push(link(k, m[12], [m[12]]));
		else if (m[13] !== undefined) out.push(link(k, m[13], [m[13]]));
		last = index + m[0].length;
	}
	if (last < text.length) out.push(...withBreaks(text.slice(last)));
	return out;
}

function link(key: number, raw: string, children: ComponentChildren[]): VNode {
	const href = safeLinkHref(raw);
	if (!href) return <span key={key} class="blocked" title="link blocked">{children}</span>;
	return (
		<a key={key} href={href} target="_blank" rel="noopener noreferrer nofollow">
			{children}
		</a>
	);
}

/** Soft line breaks inside a paragraph stay visible. */
function withBreaks(text: string): ComponentChildren[] {
	const parts = text.split("\n");
	return parts.flatMap((part, n) => (n === 0 ? [part] : [<br key={`br${n}`} />, part]));
}

export function CodeBlock({ code, language }: { code: string; language: string }) {
	const [copied, setCopied] = useState(false);
	const copy = () => {
		void navigator.clipboard?.writeText(code).then(() => {
			setCopied(true);
			setTimeout(() => setCopied(false), 1200);
		});
	};
	return (
		<div class="code">
			<div class="code-bar">
				<span>{language || "text"}</span>
				<button type="button" class="copy" onClick={copy} aria-label="Copy code">
					{copied ? "Copied" : "Copy"}
				</button>
			</div>
			<pre>
				<code>
					{highlight(code, language).map((t, n) => (t.kind === "plain" ? t.text : <span key={n} class={`tok-${t.kind}`}>{t.text}</span>))}
				</code>
			</pre>
		</div>
	);
}
