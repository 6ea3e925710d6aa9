import path from "node:path";
import type { Reporter, TestModule } from "vitest/node";
import type { OptionalPart } from "./optional-parts.js";

interface Skipped {
  tests: number;
  readonly files: Set<string>;
  readonly reasons: Set<string>;
}

/** The end-of-run line for tests skipped by `needs(...)`, or undefined when none was. */
export function missingPartsSummary(testModules: ReadonlyArray<TestModule>, ci: boolean): string | undefined {
  const byPart = new Map<OptionalPart, Skipped>();
  for (const testModule of testModules) {
    for (const test of testModule.children.allTests()) {
      const missing = test.meta().missingParts;
      if (!missing || test.result().state !== "skipped") continue;
      for (const { part, reason } of missing) {
        const entry = byPart.get(part) ?? { tests: 0, files: new Set<string>(), reasons: new Set<string>() };
        entry.tests += 1;
        entry.files.add(path.basename(testModule.moduleId));
        entry.reasons.add(reason);
        byPart.set(part, entry);
      }
    }
  }
  if (byPart.size === 0) return undefined;
  const parts = [...byPart].map(
    ([part, { tests, files, reasons }]) => `${part}: ${tests} ${tests === 1 ? "test" : "tests"} in ${[...files].sort().join(", ")} (${[...reasons].join("; ")})`,
  );
  const head = ci ? "FAIL: CI needs every optional part, but tests skipped for a missing one" : "Skipped for a missing optional part (see README, Tests)";
  return `${head}: ${parts.join(" | ")}`;
}

/**
 * Prints one line at the end of the run naming the tests skipped for a missing optional part, and
 * under CI=true fails the run: CI provides every part, so such a skip there is a gap, not a choice.
 */
export default class MissingPartsReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const ci = Boolean(process.env.CI) && process.env.CI !== "false" && process.env.CI !== "0";
    const line = missingPartsSummary(testModules, ci);
    if (line === undefined) return;
    process.stdout.write(`\n${line}\n`);
    if (ci) process.exitCode = 1;
  }
}
