/**
 * A URL fit for a log line or a status reason: user name, password and the query string (where
 * tokens tend to sit) are left out. Anything that does not parse as a URL is not shown at all.
 */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    const hadQuery = parsed.search !== "";
    parsed.search = "";
    parsed.hash = "";
    return hadQuery ? `${parsed.href}?…` : parsed.href;
  } catch {
    return "(invalid url)";
  }
}
