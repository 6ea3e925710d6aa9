/**
 * What a SKILL.md body adds to its description for search: the first paragraph of prose and the
 * headings, as plain text, at most `budget` characters (cut on a word). Code blocks, tables and
 * lists are skipped: they are long and say how, not what. Computed when the file is parsed, so
 * search reads no file.
 */
export function skillOutline(body: string, budget = 600): string {
  const headings: string[] = [];
  let intro = "";
  let paragraph: string[] = [];
  let fenced = false;
  const endParagraph = (): void => {
    if (intro === "" && paragraph.length > 0) intro = paragraph.join(" ");
    paragraph = [];
  };
  for (const raw of body.split("\n")) {
    const line = raw.trim();
    if (/^(```|~~~)/.test(line)) {
      fenced = !fenced;
      endParagraph();
      continue;
    }
    if (fenced) continue;
    const heading = /^#{1,6}\s+(.+)$/.exec(line);
    if (heading) {
      endParagraph();
      headings.push(plain(heading[1] as string));
    } else if (line === "" || /^([|>]|[-*+]\s|\d+[.)]\s|---|\*\*\*|<)/.test(line)) {
      endParagraph();
    } else if (intro === "") {
      paragraph.push(plain(line));
    }
    if (intro.length + headings.join(". ").length > budget) break;
  }
  endParagraph();
  return cutOnWord([intro, headings.join(". ")].filter(Boolean).join(" ").replace(/\s+/g, " ").trim(), budget);
}

/**
 * The start of a SKILL.md body as plain text for search, at most `budget` characters (cut on a
 * word): prose, headings, lists and tables in order, without code blocks, HTML tags and link
 * targets. Lists and tables say when and for what the skill is used in words users say, which
 * the outline leaves out; further down a body is mostly how-to. Computed when the file is parsed.
 */
export function skillBodyText(body: string, budget = 3000): string {
  const parts: string[] = [];
  let length = 0;
  let fenced = false;
  for (const raw of body.split("\n")) {
    const line = raw.trim();
    if (/^(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    const text = plain(line.replace(/<!--.*?-->|<[^>]*>/g, " ")).replace(/[#|>*+-]+(?=\s|$)|^\d+[.)]\s/g, " ").replace(/\s+/g, " ").trim();
    if (text === "") continue;
    parts.push(text);
    length += text.length + 1;
    if (length > budget) break;
  }
  return cutOnWord(parts.join(" "), budget);
}

function cutOnWord(text: string, budget: number): string {
  if (text.length <= budget) return text;
  const cut = text.slice(0, budget);
  const space = cut.lastIndexOf(" ");
  return (space > budget / 2 ? cut.slice(0, space) : cut).trimEnd();
}

/** Markdown emphasis, links and inline code as their text. */
function plain(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[*_`]+/g, "")
    .trim();
}
