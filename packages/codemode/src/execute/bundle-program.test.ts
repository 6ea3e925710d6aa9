import fs from "node:fs";
import path from "node:path";
import { generateCodeApi } from "@thinktank/codegen";
import { makeTempDir } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleProgram } from "./bundle-program.js";

let temp: ReturnType<typeof makeTempDir>;
let codeApiDir: string;
const bundle = (code: string, language: "typescript" | "javascript" = "typescript") => bundleProgram({ code, language, codeApiDir });

beforeAll(async () => {
  temp = makeTempDir("tt-bundle-");
  codeApiDir = path.join(temp.dir, "code-api");
  await generateCodeApi({ servers: [{ server: "sales:slack", tools: [{ name: "post_message", inputSchema: { type: "object", properties: { text: { type: "string" } } } }] }], outDir: codeApiDir });
  fs.writeFileSync(path.join(temp.dir, "secret.ts"), 'export const secret = "host-secret-value";');
}, 60_000);
afterAll(() => temp.cleanup());

describe("bundleProgram", () => {
  it("bundles the code API imports (mount path, .js or .ts, the servers/<dir> alias) into one module", async () => {
    for (const specifier of ["/mnt/code-api/servers/sales-slack/index.ts", "/mnt/code-api/servers/sales-slack/index.js", "servers/sales-slack", "servers/sales-slack/postMessage"]) {
      const result = await bundle(`import { postMessage } from "${specifier}";\nconst text: string = "hi";\nawait postMessage({ text });`);
      expect(result.ok, specifier).toBe(true);
      expect(result.ok && result.source).toContain('"sales:slack"');
      expect(result.ok && result.source).not.toContain("const text: string");
    }
  });

  it("leaves node built-ins as imports and makes require work in the ES module", async () => {
    const result = await bundle('import fs from "node:fs"; import os from "os"; const path = require("path"); console.log(fs, os, path);', "javascript");
    expect(result.ok).toBe(true);
    expect(result.ok && result.source).toMatch(/from "node:fs"/);
    expect(result.ok && result.source).toContain("createRequire");
  });

  it.each([
    ["an npm package", 'import _ from "lodash";', 'cannot import "lodash"'],
    ["a host file by absolute path", 'import x from "/etc/passwd";', 'cannot import "/etc/passwd"'],
    ["a relative path", 'import { secret } from "../secret.ts";', 'cannot import "../secret.ts"'],
    ["an escape from the mount", 'import x from "/mnt/code-api/../../etc/passwd";', "cannot import"],
    ["a missing server", 'import x from "servers/nope";', 'cannot import "servers/nope": no such module in the code API'],
  ])("refuses %s, naming the import and what is allowed", async (_case, code, message) => {
    // JavaScript: TypeScript drops imports a program never uses, so they would not be resolved at all.
    const result = await bundle(`${code}\nconsole.log(1);`, "javascript");
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toContain(message);
    expect(!result.ok && result.message).toMatch(/^program\.js:1:\d+: error:/);
    expect(!result.ok && result.message).not.toContain("host-secret-value");
  });

  it("refuses a symlink in the code API that leads out of it", async () => {
    fs.symlinkSync(path.join(temp.dir, "secret.ts"), path.join(codeApiDir, "servers", "leak.ts"));
    const result = await bundle('import { secret } from "/mnt/code-api/servers/leak.ts"; console.log(secret);');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toContain("leads outside the code API");
  });

  it("reports syntax errors with line and column", async () => {
    const result = await bundle("const a = 1;\nconst b = ;\n");
    expect(result).toEqual({ ok: false, message: expect.stringMatching(/^program\.ts:2:11: error: Unexpected ";"/) });
  });
});
