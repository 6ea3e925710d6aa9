import { isThinktankError, type ExtensionsStore } from "@thinktank/core";
import type { ExtensionsSnapshot } from "@thinktank/core";

/** What the snapshotters read: the document, its revision and ETag. */
export interface ExtensionsReading {
  readonly document: ExtensionsSnapshot["document"];
  readonly revision: number;
  readonly etag: string | undefined;
}

const missing: ExtensionsReading = Object.freeze({
  document: Object.freeze({ mcpServers: Object.freeze({}), skills: Object.freeze({}), plugins: Object.freeze({}), tools: Object.freeze({}) }) as ExtensionsSnapshot["document"],
  revision: 0,
  etag: undefined,
});

/**
 * extensions_config.json as the agent reads it (never writes): the store's cached read (one
 * stat while unchanged). A missing file reads as empty sections (the gateway creates it on its
 * first write, and the agent may start first); a malformed one throws STORE_CORRUPT.
 */
export class ExtensionsSettings {
  constructor(private readonly store: ExtensionsStore) {}

  async read(): Promise<ExtensionsReading> {
    try {
      const snapshot = await this.store.read();
      return snapshot;
    } catch (error) {
      if (isThinktankError(error) && error.code === "CONFIG_INVALID" && (error.cause as NodeJS.ErrnoException | undefined)?.code === "ENOENT") return missing;
      throw error;
    }
  }
}
