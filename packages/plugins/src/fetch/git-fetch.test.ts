import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { makeTempDir, startGitHttpServer, startHangingServer, type GitHttpServer } from "@thinktank/testing";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { defaultFetchOptions, type FetchOptions } from "./fetch-options.js";
import { fetchGitTree } from "./git-fetch.js";

let serverDir: { dir: string; cleanup: () => void };
let server: GitHttpServer;
let temp: { dir: string; cleanup: () => void };
const options = (extra: Partial<FetchOptions> = {}): FetchOptions => ({ ...defaultFetchOptions, allowHttp: true, env: { PATH: process.env.PATH }, ...extra });

beforeAll(async () => {
  serverDir = makeTempDir("tt-git-server-");
  server = await startGitHttpServer(serverDir.dir);
});
afterAll(async () => {
  await server.close();
  serverDir.cleanup();
});
beforeEach(() => {
  temp = makeTempDir("tt-git-fetch-");
});
afterEach(() => temp.cleanup());

const destination = (name = "out"): string => path.join(temp.dir, name);

describe("fetchGitTree over git's smart HTTP", () => {
  it("fetches the tip shallowly, pins its commit, leaves .git out, and copies a link inside as its target", async () => {
    const first = server.commit("team/tools", { "README.md": "one", "CLAUDE.md": "guide", "AGENTS.md": { link: "CLAUDE.md" }, "sub/a.md": "a" });
    const second = server.commit("team/tools", { "README.md": "two" });
    const result = await fetchGitTree({ url: `${server.url}/team/tools.git`, destination: destination(), workParent: temp.dir }, options());
    expect(result.commit).toBe(second);
    expect(fs.readFileSync(path.join(destination(), "README.md"), "utf8")).toBe("two");
    expect(fs.lstatSync(path.join(destination(), "AGENTS.md")).isFile()).toBe(true);
    expect(fs.existsSync(path.join(destination(), ".git"))).toBe(false);
    // Pinned to an older commit (by id), and one folder of it.
    const pinned = await fetchGitTree({ url: `${server.url}/team/tools.git`, sha: first, path: "sub", destination: destination("old"), workParent: temp.dir }, options());
    expect(pinned.commit).toBe(first);
    expect(fs.readdirSync(destination("old"))).toEqual(["a.md"]);
    expect(fs.readdirSync(temp.dir).sort()).toEqual(["old", "out"]);
  });

  it("refuses option and command injection before running git, and a link leaving the tree after", async () => {
    const refused = async (request: Partial<Parameters<typeof fetchGitTree>[0]>, message: RegExp): Promise<void> => {
      await expect(fetchGitTree({ url: `${server.url}/team/tools.git`, destination: destination(), workParent: temp.dir, ...request }, options())).rejects.toMatchObject({ code: "INVALID_SOURCE", message: expect.stringMatching(message) });
    };
    await refused({ url: "--upload-pack=touch /tmp/pwned" }, /starts with '-'/);
    await refused({ url: "ext::sh -c touch% /tmp/pwned" }, /whitespace|remote-helper/);
    await refused({ url: "ext::sh" }, /remote-helper/);
    await refused({ url: "fd::17" }, /remote-helper/);
    await refused({ url: "file:///etc" }, /uses file:\/\//);
    await refused({ url: "ssh://-oProxyCommand=touch%20/tmp/pwned@example.com/x.git" }, /starting with '-'/);
    await refused({ url: "git@-oProxyCommand:x" }, /is not an https/);
    await refused({ url: "/etc" }, /is not an https/);
    await refused({ url: `${server.url}/team/tools.git`, ref: "--upload-pack=x" }, /starts with '-'/);
    await refused({ url: `${server.url}/team/tools.git`, ref: "main@{1}" }, /not a plain branch/);
    await refused({ url: `${server.url}/team/tools.git`, path: "../../etc" }, /must stay inside/);
    await refused({ url: `${server.url}/team/tools.git`, sha: "HEAD~1" }, /not a full commit id/);
    await expect(fetchGitTree({ url: `${server.url}/team/tools.git`, destination: destination(), workParent: temp.dir }, { ...options(), allowHttp: false })).rejects.toMatchObject({ code: "INVALID_SOURCE", message: expect.stringContaining("allow_http") });
    expect(fs.existsSync("/tmp/pwned")).toBe(false);

    server.commit("team/evil", { "plugin.json": "{}", passwd: { link: "/etc/passwd" } });
    await expect(fetchGitTree({ url: `${server.url}/team/evil.git`, destination: destination(), workParent: temp.dir }, options())).rejects.toMatchObject({ code: "ARCHIVE_SYMLINK" });
    expect(fs.readdirSync(temp.dir)).toEqual([]);
  });

  it("stops a source that hangs at the deadline, and one that brings in more than the size limit", async () => {
    const hanging = await startHangingServer();
    try {
      const started = Date.now();
      await expect(fetchGitTree({ url: `${hanging.url}/x.git`, destination: destination(), workParent: temp.dir }, options({ timeoutMs: 1500 }))).rejects.toMatchObject({ code: "SOURCE_TIMEOUT" });
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(hanging.connections).toBeGreaterThan(0);
    } finally {
      await hanging.close();
    }
    server.commit("team/huge", { "blob.bin": crypto.randomBytes(6 * 1024 * 1024) });
    await expect(fetchGitTree({ url: `${server.url}/team/huge.git`, destination: destination(), workParent: temp.dir }, options({ maxBytes: 1024 * 1024 }))).rejects.toMatchObject({ code: "SOURCE_TOO_LARGE" });
    expect(fs.readdirSync(temp.dir)).toEqual([]);
    await expect(fetchGitTree({ url: `${server.url}/team/missing.git`, destination: destination(), workParent: temp.dir }, options())).rejects.toMatchObject({ code: "SOURCE_FETCH_FAILED" });
  });
});
