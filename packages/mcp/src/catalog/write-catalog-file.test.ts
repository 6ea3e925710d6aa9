import fs from "node:fs";
import path from "node:path";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";
import { catalogFileName, readCachedToolList } from "./cached-tool-list.js";
import { readCatalog } from "./read-catalog.js";
import { removeCatalogFile, writeCatalogFile } from "./write-catalog-file.js";

let cleanup = (): void => {};
afterEach(() => cleanup());

const tool = { name: "echo", description: "Echoes.", inputSchema: { type: "object", properties: { text: { type: "string" } } } };

describe("writeCatalogFile", () => {
  it("writes the catalog format plus metadata, readable by readCatalog and readCachedToolList", async () => {
    const temp = makeTempDir();
    cleanup = temp.cleanup;
    const dir = path.join(temp.dir, "nested", "catalog");
    const list = { server: "plugin:my server", tools: [tool], configHash: "abc", fetchedAt: "2030-01-01T00:00:00.000Z", transport: "stdio" };
    const file = await writeCatalogFile(dir, list);
    expect(path.basename(file)).toBe(catalogFileName("plugin:my server"));
    expect(readCatalog(dir)).toEqual({ servers: [list], skipped: [] });
    expect(readCachedToolList(dir, "plugin:my server")).toEqual(list);
    expect(fs.readdirSync(dir)).toEqual([path.basename(file)]);
    await removeCatalogFile(dir, "plugin:my server");
    await removeCatalogFile(dir, "plugin:my server");
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("replaces a file whole: a reader polling during 50 rewrites never sees a partial file", async () => {
    const temp = makeTempDir();
    cleanup = temp.cleanup;
    const big = Array.from({ length: 300 }, (_, i) => ({ ...tool, name: `tool_${i}`, description: "x".repeat(200) }));
    let stop = false;
    let reads = 0;
    const reader = (async () => {
      while (!stop) {
        const cached = readCachedToolList(temp.dir, "s");
        if (cached) {
          reads += 1;
          expect([1, 300]).toContain(cached.tools.length);
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    for (let i = 0; i < 50; i++) {
      await writeCatalogFile(temp.dir, { server: "s", tools: i % 2 ? big : [tool], configHash: String(i), fetchedAt: "", transport: "stdio" });
    }
    stop = true;
    await reader;
    expect(reads).toBeGreaterThan(0);
  });

  it("gives distinct, safe file names", () => {
    expect(catalogFileName("github")).toBe("github.json");
    expect(catalogFileName("my-server_2.v1")).toBe("my-server_2.v1.json");
    const odd = ["a/b", "a:b", "a b", "../etc", "a_b-x"].map(catalogFileName);
    expect(new Set(odd).size).toBe(odd.length);
    for (const name of odd) expect(name).toMatch(/^[A-Za-z0-9_][A-Za-z0-9._-]*\.json$/);
  });

  it("answers undefined for a missing file, a file of another shape, or a file of another server", async () => {
    const temp = makeTempDir();
    cleanup = temp.cleanup;
    expect(readCachedToolList(temp.dir, "missing")).toBeUndefined();
    fs.writeFileSync(path.join(temp.dir, "broken.json"), "{");
    expect(readCachedToolList(temp.dir, "broken")).toBeUndefined();
    fs.writeFileSync(path.join(temp.dir, "other.json"), JSON.stringify({ server: "someone-else", tools: [] }));
    expect(readCachedToolList(temp.dir, "other")).toBeUndefined();
    fs.writeFileSync(path.join(temp.dir, "hand.json"), JSON.stringify({ server: "hand", tools: [tool] }));
    expect(readCachedToolList(temp.dir, "hand")).toEqual({ server: "hand", tools: [tool], configHash: "", fetchedAt: "", transport: "" });
  });
});
