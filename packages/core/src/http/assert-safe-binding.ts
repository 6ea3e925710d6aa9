import { ThinktankError } from "../errors/thinktank-error.js";
import { isLoopbackAddress } from "./request-guard.js";

/** What each service says when it refuses an address. */
const refusals = {
  gateway: (host: string) =>
    `gateway: refusing to listen on ${host} without an API key: anyone who can reach it could change your extensions. Set THINKTANK_API_KEY, or listen on 127.0.0.1 (GATEWAY_HOST=127.0.0.1 or gateway.host in config.yaml).`,
  agent: (host: string) => `refusing to listen on ${host} without THINKTANK_API_KEY: set the key, or listen on 127.0.0.1 (agent.host in config.yaml, AGENT_HOST).`,
} as const;

/**
 * Refuses a non-loopback address for a service without an API key (docs/architecture.md,
 * "Requests from browsers"): the one rule for the gateway and the agent server. In core, not the
 * gateway, so that `thinktank start` checks it before starting anything without loading the
 * gateway's modules.
 * @param service whose address it is, for the message. @default "gateway"
 */
export function assertSafeBinding(host: string, apiKey: string | undefined, service: keyof typeof refusals = "gateway"): void {
  if (apiKey || isLoopbackAddress(host)) return;
  throw new ThinktankError("CONFIG_INVALID", refusals[service](host), { details: { host } });
}
