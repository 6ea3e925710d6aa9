/**
 * Whether an If-Match (or If-None-Match) header value names `etag`: `*` matches any current
 * entity; otherwise a comma-separated list of tags, each compared without its `W/` prefix and
 * quotes (so a client that drops the quotes still matches).
 */
export function etagMatches(header: string, etag: string): boolean {
  const wanted = bare(etag);
  return header
    .split(",")
    .map((tag) => tag.trim())
    .some((tag) => tag === "*" || (tag !== "" && bare(tag) === wanted));
}

function bare(tag: string): string {
  return tag.replace(/^W\//, "").replace(/^"(.*)"$/s, "$1");
}
