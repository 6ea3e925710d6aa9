import { ThinktankError } from "../errors/thinktank-error.js";
import { isLoopbackAddress } from "./request-guard.js";

/**
 * Refuses a non-loopback address for the gateway without an API key (docs/architecture.md,
 * "Requests from browsers"). In core, not the gateway, so that `thinktank start` checks it before
 * starting anything without loading the gateway's modules.
 */
export function assertSafeBinding(host: string, apiKey: string | undefined): void {
  if (apiKey || isLoopbackAddress(host)) return;
  throw new ThinktankError(
    "CONFIG_INVALID",
    `gateway: refusing to listen on ${host} without an API key: anyone who can reach it could change your extensions. Set THINKTANK_API_KEY, or listen on 127.0.0.1 (GATEWAY_HOST=127.0.0.1 or gateway.host in config.yaml).`,
    { details: { host } },
  );
}
