import fs from "node:fs";
import path from "node:path";
import { maskUrlSecrets, ThinktankError, type ExtensionsStore, type MarketplaceRecord } from "@thinktank/core";
import type { FetchOptions } from "../fetch/fetch-options.js";
import { stagingDir } from "../install/plugin-paths.js";
import { isValidPluginName, pluginNameRule } from "../manifest/plugin-name.js";
import { fetchMarketplace, parseMarketplaceSource, type MarketplacePinned, type MarketplaceSource } from "./marketplace-source.js";
import { readMarketplace, type Marketplace } from "./read-marketplace.js";

export interface MarketplaceRegistryOptions {
  /** config.plugins.path: copies live in `<pluginsDir>/marketplaces/<name>`. */
  readonly pluginsDir: string;
  readonly store: Pick<ExtensionsStore, "read" | "update">;
  readonly fetch: FetchOptions;
  /** Relative local paths resolve against it (config.yaml's folder). */
  readonly baseDir: string;
  /** @default () => new Date() */
  readonly now?: () => Date;
}

/** A marketplace as the API lists it. */
export interface MarketplaceView {
  readonly name: string;
  readonly source: MarketplaceSource;
  readonly pinned?: MarketplacePinned;
  readonly updated_at?: string;
  /** From its marketplace.json. */
  readonly description?: string;
  readonly owner?: Readonly<Record<string, unknown>>;
  readonly plugins: number;
  /** Entries left out of its marketplace.json, and why; or why its copy cannot be read. */
  readonly problems: readonly string[];
}

type Draft = { marketplaces?: Record<string, MarketplaceRecord> };

/**
 * Marketplaces as named objects: each is fetched (git, npm, a URL, a local folder; see
 * fetchMarketplace) into `<pluginsDir>/marketplaces/<name>`, and recorded in
 * extensions_config.json under `marketplaces` with its source and what was pinned (the exact
 * commit, or tarball integrity). A fetch is staged first and checked to be a marketplace; the
 * copy and the record change together under the store's lock, and an update swaps the new copy
 * in atomically, keeping the old one if anything fails.
 */
export class MarketplaceRegistry {
  private readonly options: MarketplaceRegistryOptions;

  constructor(options: MarketplaceRegistryOptions) {
    this.options = options;
  }

  /** Fetches and records a marketplace; `name` defaults to its marketplace.json's name. */
  async add(input: unknown, name?: string): Promise<MarketplaceView> {
    const source = parseMarketplaceSource(input, { baseDir: this.options.baseDir, fetch: this.options.fetch });
    return this.fetchInto(source, name, false);
  }

  async list(): Promise<MarketplaceView[]> {
    const { document } = await this.options.store.read();
    const records = (document as Draft).marketplaces ?? {};
    return Object.entries(records).map(([name, record]) => this.view(name, record as MarketplaceRecord));
  }

  /** The record and the copy's marketplace.json of `name` (MARKETPLACE_NOT_FOUND when it was never added). */
  async get(name: string): Promise<{ record: MarketplaceRecord; marketplace: Marketplace; view: MarketplaceView }> {
    const record = await this.record(name);
    return { record, marketplace: readMarketplace(this.folder(name)), view: this.view(name, record) };
  }

  /** Fetches the marketplace's source again (its ref's current commit, the package's version or tag) and swaps the copy. */
  async update(name: string): Promise<MarketplaceView & { readonly previous?: MarketplacePinned }> {
    const record = await this.record(name);
    const view = await this.fetchInto(record.source, name, true);
    return { ...view, ...(record.pinned ? { previous: record.pinned } : {}) };
  }

  /** Drops the record and the copy. Plugins installed from it stay installed (they no longer update). */
  async remove(name: string): Promise<void> {
    await this.record(name);
    const trash = await fs.promises.mkdtemp(path.join(stagingDir(this.options.pluginsDir), "remove-market-"));
    try {
      await this.options.store.update(async (draft: Draft) => {
        if (!draft.marketplaces?.[name]) throw notFound(name);
        if (fs.existsSync(this.folder(name))) await fs.promises.rename(this.folder(name), path.join(trash, "copy"));
        delete draft.marketplaces[name];
      });
    } finally {
      await fs.promises.rm(trash, { recursive: true, force: true });
    }
  }

  /** `<pluginsDir>/marketplaces/<name>`. */
  folder(name: string): string {
    return path.join(this.options.pluginsDir, "marketplaces", name);
  }

  private async record(name: string): Promise<MarketplaceRecord> {
    const { document } = await this.options.store.read();
    const record = isValidPluginName(name) ? (document as Draft).marketplaces?.[name] : undefined;
    if (!record) throw notFound(name);
    return record as MarketplaceRecord;
  }

  private async fetchInto(source: MarketplaceSource, requestedName: string | undefined, replace: boolean): Promise<MarketplaceView> {
    const staging = await fs.promises.mkdtemp(path.join(stagingDir(this.options.pluginsDir), "market-"));
    try {
      const content = path.join(staging, "content");
      const pinned = await fetchMarketplace(source, content, staging, this.options.fetch);
      const marketplace = readMarketplace(content);
      const name = requestedName ?? marketplace.name;
      if (!isValidPluginName(name)) throw new ThinktankError("INVALID_MARKETPLACE", `'${name}' cannot name a marketplace: ${pluginNameRule()}; pass a name`);
      const target = this.folder(name);
      const aside = path.join(staging, "previous");
      const record: MarketplaceRecord = { source, ...(Object.keys(pinned).length > 0 ? { pinned } : {}), updated_at: (this.options.now ?? (() => new Date()))().toISOString() };
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      await this.options.store
        .update(async (draft: Draft) => {
          const exists = Boolean(draft.marketplaces?.[name]);
          if (!replace && exists) throw new ThinktankError("MARKETPLACE_NAME_CONFLICT", `a marketplace named '${name}' is already added; update or remove it`, { details: { name } });
          if (replace && !exists) throw notFound(name);
          if (fs.existsSync(target)) await fs.promises.rename(target, aside);
          await fs.promises.rename(content, target);
          draft.marketplaces = { ...draft.marketplaces, [name]: record };
        })
        .catch(async (error: unknown) => {
          // Put the old copy back (or clear a leftover) when the store refused the write.
          if (fs.existsSync(aside)) {
            await fs.promises.rm(target, { recursive: true, force: true });
            await fs.promises.rename(aside, target);
          } else if (!fs.existsSync(content) && fs.existsSync(target) && !replace) await fs.promises.rm(target, { recursive: true, force: true });
          throw error;
        });
      return this.view(name, record);
    } finally {
      await fs.promises.rm(staging, { recursive: true, force: true });
    }
  }

  private view(name: string, record: MarketplaceRecord): MarketplaceView {
    const base = { name, source: shownSource(record.source), ...(record.pinned ? { pinned: record.pinned } : {}), ...(record.updated_at ? { updated_at: record.updated_at } : {}) };
    try {
      const marketplace = readMarketplace(this.folder(name));
      const description = marketplace.metadata?.description;
      return { ...base, ...(typeof description === "string" ? { description } : {}), ...(marketplace.owner ? { owner: marketplace.owner } : {}), plugins: marketplace.plugins.length, problems: marketplace.problems };
    } catch (error) {
      return { ...base, plugins: 0, problems: [`the copy cannot be read: ${(error as Error).message}; update the marketplace`] };
    }
  }
}

/**
 * A source as the API shows it: a URL's password or token (`https://user:pass@`, `https://<token>@`)
 * masked. The record keeps it (an update fetches with it); GET /api/marketplaces needs no key.
 */
function shownSource(source: MarketplaceSource): MarketplaceSource {
  return typeof source.url === "string" ? { ...source, url: maskUrlSecrets(source.url) } : source;
}

function notFound(name: string): ThinktankError {
  return new ThinktankError("MARKETPLACE_NOT_FOUND", `no marketplace named '${name}' was added`, { details: { name } });
}
