import path from "node:path";
import { fileURLToPath } from "node:url";
import type { CatalogServer } from "../src/catalog/catalog-types.js";
import { readCatalog } from "../src/catalog/read-catalog.js";

/** This folder: the gold set (gold-set.jsonl) and the extra catalog servers (extra-catalog/). */
export const evalDir = path.dirname(fileURLToPath(import.meta.url));
export const goldSetFile = path.join(evalDir, "gold-set.jsonl");
/** A second tuning set, written after the first was tuned on (split "dev"). */
export const devV2File = path.join(evalDir, "gold", "dev-v2.jsonl");
/** The held-out set that replaced gold-set.jsonl's "test" split: written and frozen before any tuning of the second round; only reported, never tuned on. */
export const testV2File = path.join(evalDir, "gold", "test-v2.jsonl");
/** The agent's built-in tools ("builtin") and sample registered script tools ("registered"), in the catalog format. */
export const extraCatalogDir = path.join(evalDir, "extra-catalog");

/** The catalog the gold set is written against: the corpus's MCP servers plus the built-in and registered tools. */
export function loadEvalCatalog(corpusToolsDir: string): CatalogServer[] {
  const corpus = readCatalog(corpusToolsDir).servers;
  if (corpus.length === 0) throw new Error(`no catalog servers in ${corpusToolsDir}`);
  return [...corpus, ...readCatalog(extraCatalogDir).servers];
}
