import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadConfig } from "./load-config.js";

const core = fileURLToPath(new URL("../..", import.meta.url));
const built = path.join(core, "dist/src/config");

describe("the config validator a built process loads", () => {
  it("is the build's standalone one, made from this schema, and answers a bad config exactly as the compiled one does", (context) => {
    if (!fs.existsSync(path.join(built, "config-validator.js"))) {
      context.skip("core has no build (npx tsc -b)");
      return;
    }
    const script = spawnSync(process.execPath, [path.join(core, "scripts/build-config-validator.mjs")], { encoding: "utf8" });
    expect(script.status, script.stderr).toBe(0);
    const probe = `
      import { createRequire } from "node:module";
      const { configValidator, configValidatorKey } = await import(${JSON.stringify(path.join(built, "config-validator.js"))});
      const prebuilt = createRequire(${JSON.stringify(path.join(built, "x.js"))})("./config-validator.cjs");
      const { loadConfig } = await import(${JSON.stringify(path.join(built, "load-config.js"))});
      let problems;
      try { loadConfig({ configPath: process.argv[1] }); } catch (error) { problems = error.details.problems; }
      console.log(JSON.stringify({ same: configValidator() === prebuilt.validate, keyMatches: prebuilt.key === configValidatorKey(), problems }));`;
    const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), "config-validator-"));
    try {
      const file = path.join(dir, "config.yaml");
      fs.writeFileSync(file, "gateway:\n  port: nope\n  colour: blue\nlog:\n  level: loud\n");
      const child = spawnSync(process.execPath, ["--input-type=module", "-e", probe, file], { encoding: "utf8" });
      expect(child.status, child.stderr).toBe(0);
      const answer = JSON.parse(child.stdout) as { same: boolean; keyMatches: boolean; problems: string[] };
      expect(answer).toMatchObject({ same: true, keyMatches: true });
      let compiled: string[] = [];
      try {
        loadConfig({ configPath: file });
      } catch (error) {
        compiled = (error as { details: { problems: string[] } }).details.problems;
      }
      expect(compiled.length).toBeGreaterThanOrEqual(3);
      expect(answer.problems).toEqual(compiled);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
