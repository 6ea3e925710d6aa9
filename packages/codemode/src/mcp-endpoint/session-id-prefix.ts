/** Throws unless `prefix` (when given) is 1 to 64 letters, digits, `-` or `_`: what a session id may start with. */
export function checkSessionIdPrefix(prefix: string | undefined): void {
  if (prefix !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(prefix)) {
    throw new Error(`the MCP session id prefix ${JSON.stringify(prefix)} is not 1 to 64 letters, digits, '-' or '_'`);
  }
}
