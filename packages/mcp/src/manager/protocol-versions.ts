/** The stateless era's revision, spoken with `@modelcontextprotocol/client` (v2). */
export const modernProtocolVersion = "2026-07-28";

/**
 * The newest revision of the initialize era, spoken with `@modelcontextprotocol/sdk` (v1): its
 * LATEST_PROTOCOL_VERSION, written out here so that naming it loads no SDK (both SDKs load when a
 * session opens); protocol-eras.test.ts keeps the two equal.
 */
export const legacyProtocolVersion: string = "2025-11-25";
