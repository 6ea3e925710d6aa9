import fs from "node:fs";
import path from "node:path";
import { corpusDir, makeTempDir, needs, writeTree } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";
import { readCatalog } from "./read-catalog.js";

let cleanup = (): void => {};
afterEach(() => cleanup());

describe("readCatalog", () => {
  it("reads servers sorted by name and skips files of another shape", () => {
    const temp = makeTempDir();
    cleanup = temp.cleanup;
    writeTree(temp.dir, {
      "zeta.json": JSON.stringify({ server: "zeta", version: "1", tools: [{ name: "a", inputSchema: { type: "object" } }] }),
      "alpha.json": JSON.stringify({ server: "alpha", tools: [] }),
      "index.json": JSON.stringify([{ server: "alpha" }]),
      "broken.json": "{ nope",
      "README.md": "# not json",
      "bad-tool.json": JSON.stringify({ server: "bad", tools: [{ description: "no name" }] }),
    });
    const { servers, skipped } = readCatalog(temp.dir);
    expect(servers.map((s) => s.server)).toEqual(["alpha", "zeta"]);
    expect(servers[1]?.version).toBe("1");
    expect(skipped.map((s) => path.basename(s.file)).sort()).toEqual(["bad-tool.json", "broken.json", "index.json"]);
  });

  it("answers an empty catalog for a missing folder", () => {
    expect(readCatalog("/nonexistent/catalog")).toEqual({ servers: [], skipped: [] });
  });

  it("reads the whole corpus catalog: 85 servers, 2,136 tools", needs("corpus"), () => {
    const dir = path.join(corpusDir(), "mcp-tools");
    const { servers, skipped } = readCatalog(dir);
    expect(servers).toHaveLength(85);
    expect(servers.reduce((n, s) => n + s.tools.length, 0)).toBe(2136);
    expect(skipped.map((s) => path.basename(s.file))).toEqual(["index.json"]);
    expect(fs.existsSync(dir)).toBe(true);
  });
});
