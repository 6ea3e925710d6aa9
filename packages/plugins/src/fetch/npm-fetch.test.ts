import fs from "node:fs";
import path from "node:path";
import { buildTarGz } from "@thinktank/core";
import { makeTempDir, startFloodServer, startHangingServer, startNpmRegistryServer, writeTree, type NpmRegistryServer } from "@thinktank/testing";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { defaultFetchOptions, type FetchOptions } from "./fetch-options.js";
import { fetchNpmPackage } from "./npm-fetch.js";

let registry: NpmRegistryServer;
let temp: { dir: string; cleanup: () => void };
const options = (extra: Partial<FetchOptions> = {}): FetchOptions => ({ ...defaultFetchOptions, allowHttp: true, npmRegistry: registry.url, env: {}, ...extra });

beforeAll(async () => {
  registry = await startNpmRegistryServer();
});
afterAll(async () => registry.close());
beforeEach(() => {
  temp = makeTempDir("tt-npm-fetch-");
});
afterEach(() => temp.cleanup());

function packageFolder(name: string, version: string, files: Record<string, string> = {}): string {
  const folder = path.join(temp.dir, "src", `${name.replace("/", "__")}-${version}`);
  writeTree(folder, { "package.json": JSON.stringify({ name, version }), ".claude-plugin/plugin.json": JSON.stringify({ name: "demo", version }), ...files });
  return folder;
}

describe("fetchNpmPackage over the registry protocol", () => {
  it("fetches a package packed by npm, by exact version, dist-tag or range, verifying dist.integrity", async () => {
    const one = registry.publish(packageFolder("@acme/demo-plugin", "1.0.0", { "commands/hi.md": "Hi" }));
    registry.publish(packageFolder("@acme/demo-plugin", "1.1.0", { "commands/hi.md": "Hello" }));
    const latest = await fetchNpmPackage({ package: "@acme/demo-plugin", destination: path.join(temp.dir, "latest"), workParent: temp.dir }, options());
    expect(latest.version).toBe("1.1.0");
    expect(fs.readFileSync(path.join(temp.dir, "latest", "commands", "hi.md"), "utf8")).toBe("Hello");
    const pinned = await fetchNpmPackage({ package: "@acme/demo-plugin", version: "1.0.0", destination: path.join(temp.dir, "pinned"), workParent: temp.dir }, options());
    expect(pinned).toMatchObject({ version: "1.0.0", integrity: one.integrity });
    expect(registry.requests).toContain("/@acme/demo-plugin");
    // A range resolves to its highest match, as npm resolves it.
    const ranged = await fetchNpmPackage({ package: "@acme/demo-plugin", version: "~1.0.0", destination: path.join(temp.dir, "ranged"), workParent: temp.dir }, options());
    expect(ranged).toMatchObject({ version: "1.0.0", integrity: one.integrity });
    expect((await fetchNpmPackage({ package: "@acme/demo-plugin", version: "^1.0.0", destination: path.join(temp.dir, "caret"), workParent: temp.dir }, options())).version).toBe("1.1.0");
    await expect(fetchNpmPackage({ package: "@acme/demo-plugin", version: "^2.0.0", destination: path.join(temp.dir, "none"), workParent: temp.dir }, options())).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(fetchNpmPackage({ package: "@acme/demo-plugin", version: "9.9.9", destination: path.join(temp.dir, "x"), workParent: temp.dir }, options())).rejects.toMatchObject({ code: "NOT_FOUND", message: expect.stringContaining("latest: 1.1.0") });
  });

  it("refuses a tarball that does not match its integrity, or holds a link, and bad names and versions", async () => {
    const tarball = buildTarGz([{ name: "package/package.json", data: "{}" }]);
    registry.publishTarball("liar", "1.0.0", tarball, { integrity: `sha512-${Buffer.alloc(64).toString("base64")}` });
    await expect(fetchNpmPackage({ package: "liar", destination: path.join(temp.dir, "x"), workParent: temp.dir }, options())).rejects.toMatchObject({ code: "INTEGRITY_MISMATCH" });
    registry.publishTarball("linked", "1.0.0", buildTarGz([{ name: "package/passwd", type: "2", linkName: "/etc/passwd" }]));
    await expect(fetchNpmPackage({ package: "linked", destination: path.join(temp.dir, "x"), workParent: temp.dir }, options())).rejects.toMatchObject({ code: "ARCHIVE_SYMLINK" });
    await expect(fetchNpmPackage({ package: "--registry=http://evil", destination: path.join(temp.dir, "x"), workParent: temp.dir }, options())).rejects.toMatchObject({ code: "INVALID_SOURCE" });
    await expect(fetchNpmPackage({ package: "../etc", destination: path.join(temp.dir, "x"), workParent: temp.dir }, options())).rejects.toMatchObject({ code: "INVALID_SOURCE" });
    await expect(fetchNpmPackage({ package: "ok", version: "^1.0.0 || --x", destination: path.join(temp.dir, "x"), workParent: temp.dir }, options())).rejects.toMatchObject({ code: "INVALID_SOURCE" });
    expect(fs.readdirSync(temp.dir)).toEqual([]);
  });

  it("takes the registry and its token from npm's own configuration, sending the token only there", async () => {
    const privateRegistry = await startNpmRegistryServer({ token: "s3cret-token" });
    try {
      privateRegistry.publish(packageFolder("private-plugin", "2.0.0"));
      writeTree(temp.dir, { "home/.npmrc": `registry=${privateRegistry.url}\n//127.0.0.1:${new URL(privateRegistry.url).port}/:_authToken=\${NPM_TOKEN}\n` });
      const env = { HOME: path.join(temp.dir, "home"), NPM_TOKEN: "s3cret-token" };
      const fetched = await fetchNpmPackage({ package: "private-plugin", destination: path.join(temp.dir, "out"), workParent: temp.dir }, { ...options(), npmRegistry: undefined, env } as FetchOptions);
      expect(fetched.version).toBe("2.0.0");
      expect(privateRegistry.authorizations.every((value) => value === "Bearer s3cret-token")).toBe(true);
      await expect(fetchNpmPackage({ package: "private-plugin", destination: path.join(temp.dir, "no"), workParent: temp.dir }, { ...options(), npmRegistry: undefined, env: { HOME: path.join(temp.dir, "home") } } as FetchOptions)).rejects.toMatchObject({ code: "SOURCE_FETCH_FAILED", message: expect.stringContaining("401") });
      expect(registry.authorizations.every((value) => value === undefined)).toBe(true);
    } finally {
      await privateRegistry.close();
    }
  });

  it("stops a registry that hangs, and one that sends 1 GB, at the limits", async () => {
    const hanging = await startHangingServer();
    const flood = await startFloodServer();
    try {
      await expect(fetchNpmPackage({ package: "anything", destination: path.join(temp.dir, "x"), workParent: temp.dir }, options({ npmRegistry: `${hanging.url}/`, timeoutMs: 1000 }))).rejects.toMatchObject({ code: "SOURCE_TIMEOUT" });
      await expect(fetchNpmPackage({ package: "anything", destination: path.join(temp.dir, "x"), workParent: temp.dir }, options({ npmRegistry: `${flood.url}/`, maxBytes: 2 * 1024 * 1024 }))).rejects.toMatchObject({ code: "SOURCE_TOO_LARGE" });
      // The 1 GB source was cut off near the limit (plus what sat in socket buffers), not read through.
      expect(flood.bytesSent).toBeLessThan(64 * 1024 * 1024);
    } finally {
      await hanging.close();
      await flood.close();
    }
  });
});
