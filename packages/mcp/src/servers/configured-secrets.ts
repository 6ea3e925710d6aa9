import { redactedMarker } from "@thinktank/core";
import type { ResolvedServerConfig } from "./server-entry.js";

/** Shorter values are not masked ("1", "on", "dev" would mask ordinary words). */
const minMaskedLength = 4;

/**
 * `text` (a failure reason, a line a server wrote) with the values a server was configured with
 * masked: a stdio server's own env values (not PATH and HOME, which come from the host), a remote
 * server's header values (and the credential after a scheme word such as `Bearer`), an OAuth
 * client secret. A server that echoes its request or prints its settings in an error must not put
 * them in the reasons GET /api/mcp/servers, `thinktank mcp list`, list_servers and the logs show.
 */
export function withoutConfiguredSecrets(text: string, config: ResolvedServerConfig): string {
  let masked = text;
  for (const value of configuredSecretValues(config)) masked = masked.replaceAll(value, redactedMarker);
  return masked;
}

function configuredSecretValues(config: ResolvedServerConfig): string[] {
  const values: string[] = [];
  if (config.transport === "stdio") {
    for (const [name, value] of Object.entries(config.env)) if (name !== "PATH" && name !== "HOME") values.push(value);
  } else {
    for (const value of Object.values(config.headers)) {
      values.push(value);
      const credential = /^\s*\S+\s+(\S+)\s*$/.exec(value)?.[1];
      if (credential) values.push(credential);
    }
    if (config.oauth?.clientSecret) values.push(config.oauth.clientSecret);
  }
  return [...new Set(values.filter((value) => value.length >= minMaskedLength))].sort((a, b) => b.length - a.length);
}
