import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { TestOptions } from "vitest";
import { corpusLocation } from "./corpus.js";

/** Parts of a test machine that `npm test` may lack; each test that uses one declares it with `needs`. */
export type OptionalPart = "corpus" | "postgres" | "bubblewrap" | "browser" | "redis" | "openssl";

/** A part this machine lacks, as the summary reports it. */
export interface MissingPart {
  readonly part: OptionalPart;
  /** Why it counts as missing and how to provide it. */
  readonly reason: string;
}

declare module "vitest" {
  interface TaskMeta {
    /** Set by `needs` on a test skipped for missing parts; read by missing-parts-reporter.ts. */
    missingParts?: MissingPart[];
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/** What each part lacks here, or undefined when it is present. Checked once per test process. */
const checks: Record<OptionalPart, (env: Env) => string | undefined> = {
  corpus: (env) => {
    const dir = corpusLocation(env);
    return fs.existsSync(path.join(dir, "expected.json"))
      ? undefined
      : `no expected.json in ${dir} (set THINKTANK_CORPUS, or put ../shared/corpus beside the repository)`;
  },
  postgres: (env) => (env.THINKTANK_TEST_POSTGRES_URL ? undefined : "THINKTANK_TEST_POSTGRES_URL is not set (.ci/start-postgres prints one)"),
  bubblewrap: (env) => {
    const probe = spawnSync("bwrap", ["--ro-bind", "/", "/", "--unshare-all", "true"], { env: { PATH: env.PATH ?? "/usr/bin:/bin" }, timeout: 10_000 });
    if (probe.error) return "bwrap not found (apt-get install bubblewrap)";
    return probe.status === 0 ? undefined : `bwrap cannot create a sandbox here: ${probe.stderr.toString().trim().split("\n")[0]}`;
  },
  redis: (env) => {
    const probe = spawnSync("redis-server", ["--version"], { env: { PATH: env.PATH ?? "/usr/bin:/bin" }, timeout: 10_000 });
    if (probe.error) return "redis-server not found (apt-get install redis-server)";
    return probe.status === 0 ? undefined : `redis-server --version failed: ${probe.stderr.toString().trim().split("\n")[0]}`;
  },
  // Makes self-signed certificates for TLS tests (node:crypto cannot).
  openssl: (env) => {
    const probe = spawnSync("openssl", ["version"], { env: { PATH: env.PATH ?? "/usr/bin:/bin" }, timeout: 10_000 });
    if (probe.error) return "openssl not found (apt-get install openssl)";
    return probe.status === 0 ? undefined : `openssl version failed: ${probe.stderr.toString().trim().split("\n")[0]}`;
  },
  browser: (env) => {
    const given = env.THINKTANK_TEST_BROWSER;
    if (given) return fs.existsSync(given) ? undefined : `THINKTANK_TEST_BROWSER=${given} does not exist`;
    return browserPath(env) ? undefined : "no Chromium found: apt-get install chromium, or set THINKTANK_TEST_BROWSER to a Chromium or Chrome binary";
  },
};

/** The Chromium (or Chrome) a browser test drives: THINKTANK_TEST_BROWSER, else the first on PATH. */
export function browserPath(env: Env = process.env): string | undefined {
  if (env.THINKTANK_TEST_BROWSER) return fs.existsSync(env.THINKTANK_TEST_BROWSER) ? env.THINKTANK_TEST_BROWSER : undefined;
  for (const folder of (env.PATH ?? "").split(path.delimiter).filter(Boolean)) {
    for (const name of ["chromium", "chromium-browser", "google-chrome"]) {
      const candidate = path.join(folder, name);
      if (fs.existsSync(candidate)) return candidate;
    }
  }
  return undefined;
}

const known = new Map<OptionalPart, string | undefined>();

/** Why `part` is missing on this machine, or undefined when tests that need it can run. */
export function missingReason(part: OptionalPart, env: Env = process.env): string | undefined {
  if (env !== process.env) return checks[part](env);
  if (!known.has(part)) known.set(part, checks[part](env));
  return known.get(part);
}

/**
 * Test options for a test or suite that needs optional parts: `describe("...", needs("corpus"), () => ...)`.
 * When one is missing the test is skipped and the part recorded for the end-of-run summary
 * (missing-parts-reporter.ts), which fails the run under CI=true. A test that needs nothing optional
 * gets `{}`, so `needs(...(onPostgres ? ["postgres"] : []))` reads naturally.
 */
export function needs(...parts: OptionalPart[]): TestOptions {
  const missing: MissingPart[] = [];
  for (const part of parts) {
    const reason = missingReason(part);
    if (reason !== undefined) missing.push({ part, reason });
  }
  return missing.length === 0 ? {} : { skip: true, meta: { missingParts: missing } };
}
