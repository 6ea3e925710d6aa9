import fs from "node:fs";
import path from "node:path";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { isThinktankError, ThinktankError } from "../errors/thinktank-error.js";
import { ExtensionsStore } from "./extensions-store.js";
import type { ExtensionsDocument } from "./extensions-types.js";

let dir: string;
let cleanup: () => void;
let file: string;
beforeEach(() => {
  ({ dir, cleanup } = makeTempDir("tt-store-"));
  file = path.join(dir, "extensions_config.json");
});
afterEach(() => cleanup());

const write = (value: unknown): void => fs.writeFileSync(file, typeof value === "string" ? value : `${JSON.stringify(value, null, 2)}\n`);
const backdate = (): void => {
  const hourAgo = new Date(Date.now() - 3_600_000);
  fs.utimesSync(file, hourAgo, hourAgo);
};
async function thrown(promise: Promise<unknown>): Promise<ThinktankError> {
  try {
    await promise;
  } catch (error) {
    if (isThinktankError(error)) return error;
    throw error;
  }
  throw new Error("expected a ThinktankError");
}

describe("ExtensionsStore.read", () => {
  it("returns a deeply frozen snapshot with the four sections, revision 0 and a quoted ETag", async () => {
    write({ mcpServers: { a: { command: "node" } }, custom: 1 });
    const snapshot = await new ExtensionsStore(file).read();
    expect(Object.keys(snapshot.document)).toEqual(["mcpServers", "custom", "skills", "plugins", "tools"]);
    expect(snapshot.revision).toBe(0);
    expect(snapshot.etag).toMatch(/^"0-[0-9a-f]{16}"$/);
    expect(Object.isFrozen(snapshot.document.mcpServers.a)).toBe(true);
    expect(() => {
      (snapshot.document.mcpServers as Record<string, unknown>).b = {};
    }).toThrow(TypeError);
  });

  it("keeps the revision out of the document", async () => {
    write({ revision: 7, mcpServers: {}, skills: {}, plugins: {}, tools: {} });
    const snapshot = await new ExtensionsStore(file).read();
    expect(snapshot.revision).toBe(7);
    expect(snapshot.document).not.toHaveProperty("revision");
  });

  it("names the file when it is missing", async () => {
    const error = await thrown(new ExtensionsStore(file).read());
    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.message).toContain(`${file}: extensions config not found`);
  });

  it.each([
    ['{\n  "mcpServers": {},\n  "skills": {,\n}', 3, 14],
    ['{\n  "mcpServers": {\n    "a": tru\n  }\n}', 3, 13],
    ['{\n  "mcpServers": {}', 2, 19],
    ["", 1, 1],
    ['{"mcpServers": {}} trailing', 1, 20],
  ])("reports malformed JSON with its line and column (%#)", async (text, line, column) => {
    write(text);
    const error = await thrown(new ExtensionsStore(file).read());
    expect(error.code).toBe("STORE_CORRUPT");
    expect(error.message).toMatch(new RegExp(`^${file.replaceAll(/[.*+?^${}()|[\]\\]/g, "\\$&")}:${line}:${column}: not valid JSON: `));
    expect(error.details).toMatchObject({ file, line, column });
  });

  it("refuses a document that is not an object, or a section that is not one", async () => {
    write("[]");
    expect((await thrown(new ExtensionsStore(file).read())).message).toContain("the top level must be a JSON object");
    write({ mcpServers: [] });
    expect((await thrown(new ExtensionsStore(file).read())).message).toContain("mcpServers: must be an object");
  });

  it("costs one stat while the file is unchanged: same snapshot, no read", async () => {
    write({ mcpServers: {}, skills: {}, plugins: {}, tools: {} });
    backdate();
    const store = new ExtensionsStore(file);
    const first = await store.read();
    const readFile = vi.spyOn(fs.promises, "readFile");
    try {
      for (let i = 0; i < 5; i++) expect(await store.read()).toBe(first);
      expect(readFile).not.toHaveBeenCalled();
    } finally {
      readFile.mockRestore();
    }
  });

  it("sees a same-size edit whose mtime was put back", async () => {
    write({ mcpServers: {}, skills: { a: { enabled: true } }, plugins: {}, tools: {} });
    backdate();
    const { mtime } = fs.statSync(file);
    const store = new ExtensionsStore(file);
    expect((await store.read()).document.skills.a?.enabled).toBe(true);
    const edited = fs.readFileSync(file, "utf8").replace('"enabled": true', '"enabled": 1   ');
    const handle = fs.openSync(file, "r+");
    fs.writeSync(handle, edited, 0);
    fs.closeSync(handle);
    fs.utimesSync(file, mtime, mtime);
    expect(fs.statSync(file).size).toBe(Buffer.byteLength(edited));
    expect((await store.read()).document.skills.a?.enabled).toBe(1);
  });

  it("re-hashes a freshly modified file even when its stat looks the same (coarse timestamps)", async () => {
    write({ mcpServers: {}, skills: {}, plugins: {}, tools: {} });
    let now = Date.now();
    const store = new ExtensionsStore(file, { now: () => now });
    await store.read(); // read within the racy window of the write
    const readFile = vi.spyOn(fs.promises, "readFile");
    try {
      await store.read();
      expect(readFile).toHaveBeenCalledTimes(1); // still racy: verified by hash
      now += 10_000;
      await store.read(); // verified long after the write: settled
      await store.read();
      expect(readFile).toHaveBeenCalledTimes(2);
    } finally {
      readFile.mockRestore();
    }
  });

  it("keeps the snapshot when a rewrite leaves the bytes as they were", async () => {
    write({ mcpServers: {}, skills: {}, plugins: {}, tools: {} });
    const store = new ExtensionsStore(file);
    const first = await store.read();
    fs.writeFileSync(file, fs.readFileSync(file));
    expect(await store.read()).toBe(first);
  });

  it("changes the ETag on a hand edit, even though the revision stays", async () => {
    write({ revision: 3, mcpServers: {}, skills: {}, plugins: {}, tools: {} });
    const store = new ExtensionsStore(file);
    const before = await store.read();
    write({ revision: 3, mcpServers: { x: { command: "x" } }, skills: {}, plugins: {}, tools: {} });
    const after = await store.read();
    expect(after.revision).toBe(3);
    expect(after.etag).not.toBe(before.etag);
  });
});

describe("ExtensionsStore.update", () => {
  it("keeps unknown keys, key order and placeholders; writes 2-space JSON with a newline", async () => {
    write('{\n  "theme": {"dark": true},\n  "tools": {},\n  "mcpServers": {"gh": {"command": "npx", "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}, "x-extra": [1]}},\n  "skills": {},\n  "zeta": null,\n  "plugins": {}\n}\n');
    const store = new ExtensionsStore(file);
    await store.update((draft) => {
      draft.mcpServers.web = { type: "http", url: "https://example.com/mcp?key=$API_KEY", headers: { Authorization: "Bearer ${TOKEN:-none}" } };
    });
    const text = fs.readFileSync(file, "utf8");
    const written = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(written)).toEqual(["theme", "tools", "mcpServers", "skills", "zeta", "plugins", "revision"]);
    expect(written.theme).toEqual({ dark: true });
    expect(written.zeta).toBeNull();
    expect(written.mcpServers).toEqual({
      gh: { command: "npx", env: { GITHUB_TOKEN: "${GITHUB_TOKEN}" }, "x-extra": [1] },
      web: { type: "http", url: "https://example.com/mcp?key=$API_KEY", headers: { Authorization: "Bearer ${TOKEN:-none}" } },
    });
    expect(text).toBe(`${JSON.stringify(written, null, 2)}\n`);
  });

  it("bumps the revision on every write and keeps it where the file had it", async () => {
    write({ mcpServers: {}, revision: 41, skills: {}, plugins: {}, tools: {} });
    const store = new ExtensionsStore(file);
    const { snapshot, previous } = await store.update((draft) => {
      draft.skills["public:pdf"] = { enabled: false };
    });
    expect(previous.revision).toBe(41);
    expect(snapshot.revision).toBe(42);
    expect(snapshot.etag).toMatch(/^"42-/);
    expect((await store.touch()).revision).toBe(43);
    const written = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
    expect(Object.keys(written)).toEqual(["mcpServers", "revision", "skills", "plugins", "tools"]);
    expect(written.revision).toBe(43);
    expect(await store.read()).toBe(await store.read());
    expect((await new ExtensionsStore(file).read()).etag).toBe((await store.read()).etag);
  });

  it("returns what the mutation returned", async () => {
    write({ mcpServers: {}, skills: {}, plugins: {}, tools: {} });
    const { result } = await new ExtensionsStore(file).update((draft) => Object.keys(draft).length);
    expect(result).toBe(4);
  });

  it.each<[string, (draft: ExtensionsDocument) => void, string, string]>([
    ["a stdio server without a command", (d) => void (d.mcpServers.a = { args: ["x"] } as never), "mcpServers.a", "needs 'command'"],
    ["a remote server without a url", (d) => void (d.mcpServers.a = { type: "sse" } as never), "mcpServers.a.url", "is required"],
    ["a typed stdio server without a command", (d) => void (d.mcpServers.a = { type: "stdio" } as never), "mcpServers.a.command", "is required"],
    ["args that are not strings", (d) => void (d.mcpServers.a = { command: "x", args: ["ok", 3] } as never), "mcpServers.a.args[1]", "must be string"],
    ["an env value that is not a string", (d) => void (d.mcpServers.a = { command: "x", env: { PORT: 80 } } as never), "mcpServers.a.env.PORT", "must be string"],
    ["an unknown transport", (d) => void (d.mcpServers.a = { type: "websocket", url: "ws://x" } as never), "mcpServers.a.type", "must be one of"],
    ["a url that is not http", (d) => void (d.mcpServers.a = { type: "http", url: "file:///etc/passwd" } as never), "mcpServers.a.url", "http(s) URL"],
    ["a skill switch without enabled", (d) => void (d.skills["public:pdf"] = { on: true } as never), "skills.public:pdf.enabled", "is required"],
    ["a plugin switch that is not a boolean", (d) => void (d.plugins.p = { enabled: "yes" } as never), "plugins.p.enabled", "must be boolean"],
    ["a tool script with a path", (d) => void (d.tools.t = { description: "d", input_schema: {}, runtime: "node", script: "../evil.js" } as never), "tools.t.script", "must match pattern"],
    ["a tool with an unknown runtime", (d) => void (d.tools.t = { description: "d", input_schema: {}, runtime: "ruby", script: "t.rb" } as never), "tools.t.runtime", "must be one of"],
    ["a section that is not an object", (d) => void (d.plugins = [] as never), "plugins", "must be an object"],
    ["a missing section", (d) => void delete (d as Partial<ExtensionsDocument>).tools, "tools", "the section is missing"],
    ["a key with a dot", (d) => void (d.mcpServers["a.b"] = { command: 1 } as never), 'mcpServers["a.b"].command', "must be string"],
  ])("refuses %s with the path of the bad field and leaves the file untouched", async (_name, mutate, where, message) => {
    write({ mcpServers: {}, skills: {}, plugins: {}, tools: {} });
    const before = fs.readFileSync(file);
    const error = await thrown(new ExtensionsStore(file).update(mutate));
    expect(error.code).toBe("VALIDATION_FAILED");
    const problems = error.details?.problems as { path: string; message: string }[];
    expect(problems.some((p) => p.path === where && p.message.includes(message))).toBe(true);
    expect(error.message).toContain(where);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    expect(fs.readdirSync(dir)).toEqual(["extensions_config.json"]);
  });

  it("accepts every transport spelling and a lone url", async () => {
    write({ mcpServers: {}, skills: {}, plugins: {}, tools: {} });
    await new ExtensionsStore(file).update((draft) => {
      draft.mcpServers.a = { type: "streamable-http", url: "https://a" };
      draft.mcpServers.b = { type: "streamableHttp", url: "http://b" };
      draft.mcpServers.c = { url: "${MCP_URL}" } as never;
      draft.mcpServers.d = { type: "stdio", command: "node", cwd: "/srv", enabled: false, description: "d" };
    });
    expect(Object.keys((await new ExtensionsStore(file).read()).document.mcpServers)).toEqual(["a", "b", "c", "d"]);
  });

  it("does not let a hand-edited bad entry block other writes, but checks it once it is changed", async () => {
    write({ mcpServers: { broken: { args: [] } }, skills: {}, plugins: {}, tools: {} });
    const store = new ExtensionsStore(file);
    await store.update((draft) => {
      draft.skills.a = { enabled: true };
    });
    const error = await thrown(
      store.update((draft) => {
        (draft.mcpServers.broken as Record<string, unknown>).description = "still broken";
      }),
    );
    expect(error.details?.problems).toEqual([expect.objectContaining({ path: "mcpServers.broken", pointer: "/mcpServers/broken" })]);
  });

  it("answers PRECONDITION_FAILED to a stale If-Match and writes nothing", async () => {
    write({ mcpServers: {}, skills: {}, plugins: {}, tools: {} });
    const store = new ExtensionsStore(file);
    const { etag } = await store.read();
    await store.touch();
    const before = fs.readFileSync(file);
    const error = await thrown(store.update((d) => void (d.skills.x = { enabled: true }), { ifMatch: etag }));
    expect(error.code).toBe("PRECONDITION_FAILED");
    expect(error.details?.etag).toBe((await store.read()).etag);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });

  it("accepts a current If-Match, quoted or not, weak, in a list, or *", async () => {
    write({ mcpServers: {}, skills: {}, plugins: {}, tools: {} });
    const store = new ExtensionsStore(file);
    for (const form of [(t: string) => t, (t: string) => t.slice(1, -1), (t: string) => `W/${t}`, (t: string) => `"nope", ${t}`, () => "*"]) {
      const { etag } = await store.read();
      await store.update((d) => void (d.skills[etag] = { enabled: true }), { ifMatch: form(etag) });
    }
    expect((await store.read()).revision).toBe(5);
  });

  it("writes nothing when the mutation throws, and keeps serving later updates", async () => {
    write({ mcpServers: {}, skills: {}, plugins: {}, tools: {} });
    const store = new ExtensionsStore(file);
    const before = fs.readFileSync(file);
    const error = await thrown(
      store.update(() => {
        throw new ThinktankError("MCP_SERVER_NOT_FOUND", "no server 'x'");
      }),
    );
    expect(error.code).toBe("MCP_SERVER_NOT_FOUND");
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
    expect((await store.touch()).revision).toBe(1);
  });

  it("serializes concurrent updates in one process: none is lost", async () => {
    write({ mcpServers: {}, skills: {}, plugins: {}, tools: {} });
    const store = new ExtensionsStore(file);
    await Promise.all(Array.from({ length: 50 }, (_, i) => store.update((d) => void (d.skills[`s${i}`] = { enabled: i % 2 === 0 }))));
    const snapshot = await new ExtensionsStore(file).read();
    expect(Object.keys(snapshot.document.skills)).toHaveLength(50);
    expect(snapshot.revision).toBe(50);
  });

  it("serializes two store instances on the same file through the file lock", async () => {
    write({ mcpServers: {}, skills: {}, plugins: {}, tools: {} });
    const stores = [new ExtensionsStore(file), new ExtensionsStore(file)];
    await Promise.all(Array.from({ length: 40 }, (_, i) => stores[i % 2]?.update((d) => void (d.plugins[`p${i}`] = { enabled: true }))));
    const snapshot = await new ExtensionsStore(file).read();
    expect(Object.keys(snapshot.document.plugins)).toHaveLength(40);
    expect(snapshot.revision).toBe(40);
  });
});
