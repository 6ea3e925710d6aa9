import fs from "node:fs";
import path from "node:path";
import { loadConfig } from "@thinktank/core";
import { makeTempDir, repositoryRoot } from "@thinktank/testing";
import { afterAll, describe, expect, it } from "vitest";

/**
 * The shipped config.yaml says "the values below are the embedded defaults": a new user's
 * `npm start` must behave as docs/configuration.md's defaults say (sandbox.backend auto: bubblewrap where it
 * works, else deno). Only its demo model provider is an addition.
 */
const shipped = makeTempDir("tt-shipped-config-");
const bare = makeTempDir("tt-bare-config-");
afterAll(() => {
  shipped.cleanup();
  bare.cleanup();
});

describe("the shipped config.yaml", () => {
  it("holds the embedded defaults, its demo model provider aside", () => {
    fs.copyFileSync(path.join(repositoryRoot(), "config.yaml"), path.join(shipped.dir, "config.yaml"));
    const comparable = (dir: string) => {
      const { config_path: _path, models: _models, ...rest } = loadConfig({ cwd: dir, env: {} }) as unknown as Record<string, unknown>;
      return JSON.parse(JSON.stringify(rest).replaceAll(dir, "<project>")) as unknown;
    };
    expect(comparable(shipped.dir)).toEqual(comparable(bare.dir));
    expect(loadConfig({ cwd: shipped.dir, env: {} }).sandbox.backend).toBe("auto");
  });
});
