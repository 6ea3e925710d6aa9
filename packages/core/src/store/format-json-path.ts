/**
 * A readable path for messages: `mcpServers.github.args[0]`, with keys that would read
 * ambiguously (dots, spaces, brackets, quotes) written as `["a.b"]`.
 */
export function formatJsonPath(segments: readonly string[]): string {
  let path = "";
  for (const segment of segments) {
    if (/^\d+$/.test(segment) && path !== "") path += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$:@-]*$/.test(segment)) path += path === "" ? segment : `.${segment}`;
    else path += `[${JSON.stringify(segment)}]`;
  }
  return path;
}
