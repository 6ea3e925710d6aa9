import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { missingReason } from "./optional-parts.js";
import { repositoryRoot } from "./corpus.js";

const fixture = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/missing-parts");
const vitestBin = path.join(repositoryRoot(), "node_modules", "vitest", "vitest.mjs");

/** Runs the fixture suite in its own vitest process (as `npm test` would), with `env` on top of a clean one. */
function runFixture(env: Record<string, string>): Promise<{ code: number; stdout: string }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("VITEST") && key !== "CI" && key !== "THINKTANK_TEST_POSTGRES_URL"));
  return new Promise((resolve) => {
    execFile(process.execPath, [vitestBin, "run", "--root", fixture, "--config", path.join(fixture, "vitest.config.ts")], { env: { ...base, NO_COLOR: "1", ...env } }, (error, stdout) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout });
    });
  });
}

describe("tests that need an optional part", () => {
  it("are skipped with the part and the reason in one line at the end, and the run passes", async () => {
    const { code, stdout } = await runFixture({});
    expect(code).toBe(0);
    const lines = stdout.trim().split("\n");
    expect(lines.at(-1)).toBe(`Skipped for a missing optional part (see README, Tests): postgres: 1 test in needs-postgres.test.ts (${missingReason("postgres", {})})`);
  });

  it("fail the run under CI=true, where every part must be present", async () => {
    const { code, stdout } = await runFixture({ CI: "true" });
    expect(code).toBe(1);
    expect(stdout).toContain("FAIL: CI needs every optional part, but tests skipped for a missing one: postgres: 1 test in needs-postgres.test.ts");
  });

  it("run when the part is there, and then no line is printed", async () => {
    const { code, stdout } = await runFixture({ CI: "true", THINKTANK_TEST_POSTGRES_URL: "postgres://fixture.invalid/db" });
    expect(code).toBe(0);
    expect(stdout).toMatch(/2 passed/);
    expect(stdout).not.toContain("optional part");
  });

  it("names the package to install when redis-server is absent", () => {
    expect(missingReason("redis", { PATH: "/nonexistent" })).toBe("redis-server not found (apt-get install redis-server)");
  });

  it("names where the corpus was looked for when it is absent", () => {
    expect(missingReason("corpus", { THINKTANK_CORPUS: "/nonexistent/corpus" })).toContain("no expected.json in /nonexistent/corpus");
  });
});
