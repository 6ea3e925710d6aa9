const maxLength = 1024;

/**
 * The description Claude Code gives a SKILL.md that has none in its frontmatter: the first
 * paragraph of its markdown body (headings, code fences and HTML comments skipped, lines joined
 * with spaces, cut to 1,024 characters). Undefined when the body has no such paragraph, and the
 * skill stays unusable.
 */
export function descriptionFromBody(body: string): string | undefined {
  const paragraph: string[] = [];
  let fenced = false;
  let comment = false;
  for (const raw of body.split(/\r?\n/)) {
    const line = raw.trim();
    if (/^(```|~~~)/.test(line)) {
      if (paragraph.length > 0) break;
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    if (comment || line.startsWith("<!--")) {
      comment = !line.includes("-->");
      if (paragraph.length > 0) break;
      continue;
    }
    if (line === "" || line.startsWith("#") || /^(-{3,}|\*{3,}|_{3,})$/.test(line)) {
      if (paragraph.length > 0) break;
      continue;
    }
    paragraph.push(line);
  }
  const text = paragraph.join(" ").trim();
  if (text === "") return undefined;
  return [...text].length > maxLength ? `${[...text].slice(0, maxLength - 1).join("")}…` : text;
}
