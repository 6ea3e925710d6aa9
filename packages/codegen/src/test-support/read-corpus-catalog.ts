import fs from "node:fs";
import path from "node:path";
import { corpusDir } from "@thinktank/testing";
import type { CodegenServer } from "../generate/codegen-types.js";

/**
 * The corpus catalog (../shared/corpus/mcp-tools, the cached tool-list format of docs/architecture.md), read
 * here rather than through @thinktank/mcp so that package may depend on this one without a
 * cycle. Test support only.
 */
export function readCorpusCatalog(): CodegenServer[] {
  const dir = path.join(corpusDir(), "mcp-tools");
  return fs
    .readdirSync(dir)
    .filter((file) => file.endsWith(".json") && file !== "index.json")
    .sort()
    .map((file) => JSON.parse(fs.readFileSync(path.join(dir, file), "utf8")) as CodegenServer);
}
