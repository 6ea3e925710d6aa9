import { ThinktankError } from "@thinktank/core";
import { resolveServerConfig } from "../servers/resolve-server-config.js";
import type { McpServerEntry, RemoteServerConfig } from "../servers/server-entry.js";

/** A remote server as a sign-in sees it: its resolved URL, transport and `oauth` block. */
export interface SignInTarget {
  readonly server: string;
  readonly config: RemoteServerConfig;
}

/**
 * The server a sign-in is for, or OAUTH_NOT_APPLICABLE when it takes none: a stdio server, an
 * entry that sends its own Authorization header, or one that cannot be resolved (unset variable).
 */
export function signInTarget(server: string, entry: McpServerEntry, env: Readonly<Record<string, string | undefined>>): SignInTarget {
  const resolution = resolveServerConfig(entry, { env });
  const refuse = (why: string): never => {
    throw new ThinktankError("OAUTH_NOT_APPLICABLE", `MCP server '${server}' does not sign in with OAuth: ${why}`, { details: { server } });
  };
  if (!resolution.ok) return refuse(resolution.reason);
  const config = resolution.config;
  if (config.transport === "stdio") return refuse("it is a stdio server (only remote http and sse servers sign in)");
  if (Object.keys(config.headers).some((name) => name.toLowerCase() === "authorization")) return refuse("its entry sends its own Authorization header");
  return { server, config };
}
