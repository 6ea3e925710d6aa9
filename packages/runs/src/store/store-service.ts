import { ThinktankError } from "@thinktank/core";
import type { JsonObject } from "../persistence/agent-records.js";
import { encodeNamespace, type ItemStore, type StoredItem } from "../persistence/item-store.js";
import { ownerLabel, type Access } from "../owners/access.js";
import { checkItemFilter, matchesItemFilter, matchesItemQuery } from "./item-filter.js";

/** An item as the LangGraph API returns it. */
export interface ApiStoreItem {
  readonly namespace: readonly string[];
  readonly key: string;
  readonly value: JsonObject;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface StoreSearch {
  readonly namespacePrefix: readonly string[];
  readonly filter?: JsonObject;
  readonly query?: string;
  readonly limit: number;
  readonly offset: number;
  /** Restart the TTL of the items returned. @default true */
  readonly refreshTtl?: boolean;
}

export interface NamespaceListing {
  readonly prefix?: readonly string[];
  readonly suffix?: readonly string[];
  readonly maxDepth?: number;
  readonly limit: number;
  readonly offset: number;
}

const minuteMs = 60_000;

/**
 * The LangGraph store API (`/store/items`, `/store/items/search`, `/store/namespaces`): the rules
 * over ItemStore's rows, the same on SQLite and Postgres. Namespaces are lists of non-empty labels
 * without "."; `*` in a listing's prefix or suffix matches any one label. Items may live for `ttl`
 * minutes after their last write, or after a read that refreshes them (the default).
 *
 * Owners: every item lives under its owner's label (`ownerLabel`, the first label as kept), which
 * the owner never sees: a user's `["memories"]` is kept as `["usr_…", "memories"]`, so no namespace
 * a user can name reaches another's items. An administrator with `everyone` access (the header
 * `X-Thinktank-Scope: all`) addresses the items as kept, owner label first.
 */
export class StoreService {
  readonly #items: ItemStore;
  readonly #clock: () => Date;

  constructor(items: ItemStore, clock: () => Date) {
    this.#items = items;
    this.#clock = clock;
  }

  async put(input: { readonly namespace: readonly string[]; readonly key: string; readonly value: JsonObject; readonly ttl?: number | null }, access: Access): Promise<void> {
    checkNamespace(input.namespace, "namespace");
    checkKey(input.key);
    if (access.everyone && input.namespace.length < 2) throw invalid("namespace", "with X-Thinktank-Scope: all the first label is the owner's (e.g. [\"usr_…\", \"memories\"]): give at least two labels");
    const now = this.#clock();
    const at = now.toISOString();
    await this.#items.sweep(at);
    const ttl = input.ttl ?? null;
    await this.#items.put({
      namespace: kept(input.namespace, access),
      key: input.key,
      value: input.value,
      created_at: at,
      updated_at: at,
      ttl_minutes: ttl,
      expires_at: ttl === null ? null : new Date(now.getTime() + ttl * minuteMs).toISOString(),
    });
  }

  async get(namespace: readonly string[], key: string, options: { readonly refreshTtl?: boolean }, access: Access): Promise<ApiStoreItem | null> {
    checkNamespace(namespace, "namespace");
    checkKey(key);
    const item = await this.#items.get(kept(namespace, access), key, this.#clock().toISOString());
    if (!item) return null;
    if (options.refreshTtl ?? true) await this.#refresh([item]);
    return toApiItem(item, access);
  }

  /** Deleting an item that is not there is not an error (the API answers 204 either way). */
  async delete(namespace: readonly string[], key: string, access: Access): Promise<void> {
    checkNamespace(namespace, "namespace");
    checkKey(key);
    await this.#items.delete(kept(namespace, access), key);
  }

  async search(search: StoreSearch, access: Access): Promise<ApiStoreItem[]> {
    checkNamespace(search.namespacePrefix, "namespace_prefix", { allowEmpty: true });
    if (search.filter) checkItemFilter(search.filter);
    const now = this.#clock().toISOString();
    const filtered = (search.filter && Object.keys(search.filter).length > 0) || (search.query ?? "").trim() !== "";
    const prefix = kept(search.namespacePrefix, access);
    // Without a filter or query the database pages; otherwise the rules here pick the items first.
    const items = filtered
      ? (await this.#items.list(prefix, now))
          .filter((item) => matchesItemFilter(item.value, search.filter) && matchesItemQuery(item.value, search.query))
          .slice(search.offset, search.offset + search.limit)
      : await this.#items.list(prefix, now, { limit: search.limit, offset: search.offset });
    if (search.refreshTtl ?? true) await this.#refresh(items);
    return items.map((item) => toApiItem(item, access));
  }

  async listNamespaces(listing: NamespaceListing, access: Access): Promise<string[][]> {
    if (listing.prefix) checkNamespace(listing.prefix, "prefix", { allowEmpty: true });
    if (listing.suffix) checkNamespace(listing.suffix, "suffix", { allowEmpty: true });
    const prefix = listing.prefix ?? [];
    const literal = prefix.includes("*") ? prefix.slice(0, prefix.indexOf("*")) : prefix;
    const namespaces = (await this.#items.namespaces(kept(literal, access), this.#clock().toISOString())).map((namespace) => shown(namespace, access));
    const matching = namespaces.filter(
      (namespace) => fits(namespace, prefix, 0) && fits(namespace, listing.suffix ?? [], namespace.length - (listing.suffix?.length ?? 0)),
    );
    const cut = listing.maxDepth === undefined ? matching : matching.map((namespace) => namespace.slice(0, listing.maxDepth));
    const distinct = [...new Map(cut.map((namespace) => [encodeNamespace(namespace), namespace])).values()];
    return distinct.sort(compareNamespaces).slice(listing.offset, listing.offset + listing.limit);
  }

  async #refresh(items: readonly StoredItem[]): Promise<void> {
    const now = this.#clock().getTime();
    for (const item of items) {
      if (item.ttl_minutes !== null) await this.#items.setExpiry(item.namespace, item.key, new Date(now + item.ttl_minutes * minuteMs).toISOString());
    }
  }
}

function toApiItem(item: StoredItem, access: Access): ApiStoreItem {
  return { namespace: shown(item.namespace, access), key: item.key, value: item.value, created_at: item.created_at, updated_at: item.updated_at };
}

/** A namespace as the caller names it, as kept: under the caller's own label, unless they address everyone's. */
function kept(namespace: readonly string[], access: Access): readonly string[] {
  return access.everyone ? namespace : [ownerLabel(access.owner), ...namespace];
}

/** A kept namespace as the caller sees it (the inverse of kept: the owner's label dropped). */
function shown(namespace: readonly string[], access: Access): string[] {
  return access.everyone ? [...namespace] : namespace.slice(1);
}

/** `pattern` lies in `namespace` from label `start` on, `*` matching any one label. */
function fits(namespace: readonly string[], pattern: readonly string[], start: number): boolean {
  if (pattern.length > namespace.length) return false;
  return pattern.every((label, index) => label === "*" || namespace[start + index] === label);
}

function compareNamespaces(a: readonly string[], b: readonly string[]): number {
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    const [x, y] = [a[index] as string, b[index] as string];
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** A namespace is 1+ labels (0+ for a prefix or suffix), each a non-empty string without "." or NUL. */
function checkNamespace(namespace: readonly string[], field: string, options: { readonly allowEmpty?: boolean } = {}): void {
  if (namespace.length === 0 && !options.allowEmpty) throw invalid(field, "a namespace needs at least one label");
  namespace.forEach((label, index) => {
    if (typeof label !== "string" || label === "" || label.includes(".") || label.includes("\u0000")) {
      throw invalid(`${field}[${index}]`, `namespace labels are non-empty strings without "." (or NUL); got ${JSON.stringify(label)}`);
    }
  });
}

function checkKey(key: string): void {
  if (typeof key !== "string" || key === "" || key.includes("\u0000")) throw invalid("key", `a key is a non-empty string without NUL; got ${JSON.stringify(key)}`);
}

function invalid(field: string, problem: string): ThinktankError {
  return new ThinktankError("VALIDATION_FAILED", `${field}: ${problem}`, { details: { field } });
}
