// Reading links and headings out of Markdown, for the docs' link test: enough of CommonMark for
// these docs (inline links and images, reference definitions, fenced and inline code left out).

/** One relative link of a Markdown text: its target as written and its line (1-based). */
export interface MarkdownLink {
  readonly target: string;
  readonly line: number;
}

const fence = /^\s{0,3}(```|~~~)/;
/** `[text](target "title")` or `![alt](<target>)`: the target, without a title. */
const inlineLink = /!?\[[^\]]*\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+"[^"]*")?\s*\)/g;
/** `[label]: target` at the start of a line. */
const definition = /^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/;
const external = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

/** Lines outside fenced code blocks, with inline code spans blanked (or, for headings, only their backticks dropped). */
function proseLines(text: string, code: "blank" | "unquote" = "blank"): { text: string; line: number }[] {
  const lines: { text: string; line: number }[] = [];
  let inFence: string | undefined;
  text.split("\n").forEach((raw, index) => {
    const opener = fence.exec(raw)?.[1];
    if (opener && (inFence === undefined || inFence === opener)) {
      inFence = inFence === undefined ? opener : undefined;
      return;
    }
    if (inFence !== undefined) return;
    const text = code === "blank" ? raw.replace(/(`+)[\s\S]*?\1/g, (span) => " ".repeat(span.length)) : raw.replace(/`/g, "");
    lines.push({ text, line: index + 1 });
  });
  return lines;
}

/** Every link in the text that is not to another site or scheme (http:, mailto:, //host). */
export function markdownLinks(text: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  for (const { text: line, line: number } of proseLines(text)) {
    const targets = [...line.matchAll(inlineLink)].map((match) => match[1] as string);
    const defined = definition.exec(line)?.[1];
    if (defined) targets.push(defined);
    for (const raw of targets) {
      const target = raw.startsWith("<") ? raw.slice(1, -1) : raw;
      if (target !== "" && !external.test(target)) links.push({ target, line: number });
    }
  }
  return links;
}

/** The anchors GitHub gives a text's headings: lower case, punctuation dropped, spaces as `-`, repeats numbered. */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text: line } of proseLines(text, "unquote")) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const plain = heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1");
    const slug = plain.toLowerCase().replace(/[^\p{L}\p{N}\p{M} _-]/gu, "").replace(/ /g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}
