/** A typed value found in a query: where it is, and the kind of thing it is, as search words. */
export interface QueryEntity {
  readonly start: number;
  readonly end: number;
  /** Words for what the value is ("notes.md": file; "https://...": url, page). */
  readonly kinds: readonly string[];
  /** Whether the value's own words are content rather than the task (a file name, not a site that names a product). */
  readonly content: boolean;
}

interface EntityRule {
  readonly pattern: RegExp;
  readonly kinds: (match: RegExpMatchArray) => readonly string[];
  readonly content?: false;
}

const extensionKinds: Readonly<Record<string, readonly string[]>> = {
  xlsx: ["excel", "spreadsheet", "workbook", "file"],
  xls: ["excel", "spreadsheet", "workbook", "file"],
  csv: ["csv", "file"],
  pdf: ["pdf", "file"],
  docx: ["document", "word", "file"],
  pptx: ["presentation", "slides", "file"],
  png: ["image", "file"],
  jpg: ["image", "file"],
  jpeg: ["image", "file"],
  gif: ["image", "file"],
  svg: ["image", "file"],
};

/**
 * Values users paste into requests, recognised by their shape. Their words are content (a file
 * called notes.md is not about notes), but their kind says what the tool must handle.
 */
const rules: readonly EntityRule[] = [
  { pattern: /\bhttps?:\/\/[^\s"'<>]+/giu, kinds: () => ["url", "web page", "link"] },
  { pattern: /\b[\w.+-]+@[\w-]+\.[\w.-]+\b/gu, kinds: () => ["email", "address"] },
  { pattern: /(?<![\w/])(?:~|\.{1,2})?\/(?:[\w.@-]+\/)*[\w.@*-]+\/?/gu, kinds: () => ["path", "file", "directory"] },
  { pattern: /\b[a-z][\w-]*(?:\.[\w-]+)*\.(?:com|org|net|io|dev|ai|co|app|so|sh|gg|us|uk|de|fr|eu)\b(?![.\w])/giu, kinds: () => ["website", "site", "domain"], content: false },
  {
    pattern: /(?<![\w/.])[\w*-]+(?:[./][\w*-]+)*\.([a-z][a-z0-9]{0,4})\b(?![.\w])/giu,
    kinds: (match) => extensionKinds[(match[1] ?? "").toLowerCase()] ?? ["file"],
  },
  { pattern: /-?\d{1,3}\.\d+\s*,\s*-?\d{1,3}\.\d+/gu, kinds: () => ["coordinates", "latitude", "longitude"] },
  { pattern: /\b\d{1,2}(?::\d{2})?\s?(?:am|pm)\b|\b\d{1,2}:\d{2}\b/giu, kinds: () => ["time"] },
  { pattern: /\b\d{4}-\d{2}-\d{2}\b/gu, kinds: () => ["date"] },
  { pattern: /(?<![\w&])#[a-z][\w-]*/giu, kinds: () => ["channel"] },
];

/** Words that end like file names but are not ("e.g.", "Node.js", "next.js" are kept as names). */
const notFiles = /^(?:e\.g|i\.e|etc|vs|node\.js|next\.js|vue\.js|nuxt\.js|react\.js|d3\.js|socket\.io|\d+(?:\.\d+)+)$/i;

/** The typed values in a query, left to right, without overlaps (the first rule to claim a span wins). */
export function findEntities(query: string): QueryEntity[] {
  const found: QueryEntity[] = [];
  for (const rule of rules) {
    for (const match of query.matchAll(rule.pattern)) {
      const start = match.index ?? 0;
      const end = start + match[0].length;
      if (notFiles.test(match[0])) continue;
      if (found.some((entity) => start < entity.end && entity.start < end)) continue;
      found.push({ start, end, kinds: rule.kinds(match), content: rule.content ?? true });
    }
  }
  return found.sort((a, b) => a.start - b.start);
}
