import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { legacyProtocolVersion } from "../manager/protocol-versions.js";
import type { RemoteServerConfig } from "../servers/server-entry.js";
import { readChallenge } from "./auth-challenge.js";
import type { AuthChallenge } from "./auth-challenge.js";

/**
 * Asks the server once without a token, as a client connecting would (initialize for streamable
 * HTTP, the event stream for SSE), to read its challenge: the scope it wants and where its
 * protected-resource metadata is. Undefined when it does not answer 401/403.
 */
export async function probeChallenge(config: RemoteServerConfig, fetchFn: FetchLike): Promise<AuthChallenge | undefined> {
  const headers = { ...config.headers };
  const response =
    config.transport === "sse"
      ? await fetchFn(config.url, { headers: { ...headers, accept: "text/event-stream" }, redirect: "manual" })
      : await fetchFn(config.url, {
          method: "POST",
          redirect: "manual",
          headers: { ...headers, "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: legacyProtocolVersion, capabilities: {}, clientInfo: { name: "thinktank", version: "0.1.0" } } }),
        });
  await response.body?.cancel().catch(() => undefined);
  return response.status === 401 || response.status === 403 ? readChallenge(response) : undefined;
}
