import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ThinktankError } from "@thinktank/core";

/** This folder. */
export const skillsEvalDir = path.dirname(fileURLToPath(import.meta.url));
/** The pairs ranking choices may be tuned on. */
export const devGoldFile = path.join(skillsEvalDir, "gold", "dev.jsonl");
/** The held-out pairs: frozen before any tuning; only ever reported. */
export const heldOutGoldFile = path.join(skillsEvalDir, "gold", "test.jsonl");
/** Dev pairs in the fresh set's style (over the fresh skills and the corpus's): tuning may read them. */
export const freshDevGoldFile = path.join(skillsEvalDir, "gold", "fresh-dev.jsonl");
/**
 * The fresh held-out pairs: requests written after the ranking was tuned, over skills it never
 * met (fresh/skills) and over the corpus's; frozen before any change was measured on them; only ever reported.
 */
export const freshHeldOutGoldFile = path.join(skillsEvalDir, "gold", "fresh-test.jsonl");
/**
 * The unseen held-out pairs: written after the fresh split had been looked at, over the corpus,
 * the fresh skills and the skills of unseen/skills; frozen before any ranking of them was seen and
 * before the ranking changes measured on them; only ever reported.
 */
export const unseenHeldOutGoldFile = path.join(skillsEvalDir, "gold", "unseen-test.jsonl");

/** One (request → skill) pair: `expected[0]` is the intended skill's identity, further ones do the job as well. */
export interface SkillGoldPair {
  readonly id: string;
  readonly split: "dev" | "test";
  readonly query: string;
  readonly expected: readonly string[];
}

/** Reads a gold file (JSON Lines, one pair a line; blank lines skipped); a malformed line is VALIDATION_FAILED naming it. */
export function readSkillGold(file: string): SkillGoldPair[] {
  return fs
    .readFileSync(file, "utf8")
    .split(/\r?\n/)
    .flatMap((line, index) => {
      if (line.trim() === "") return [];
      const where = `${file}:${index + 1}`;
      let value: Partial<SkillGoldPair>;
      try {
        value = JSON.parse(line) as Partial<SkillGoldPair>;
      } catch (error) {
        throw new ThinktankError("INVALID_JSON", `${where}: ${(error as Error).message}`);
      }
      const valid =
        typeof value.id === "string" &&
        (value.split === "dev" || value.split === "test") &&
        typeof value.query === "string" &&
        value.query.trim() !== "" &&
        Array.isArray(value.expected) &&
        value.expected.length > 0 &&
        value.expected.every((identity) => typeof identity === "string");
      if (!valid) throw new ThinktankError("VALIDATION_FAILED", `${where}: expected {"id", "split": "dev"|"test", "query", "expected": [identity, ...]}`);
      return [value as SkillGoldPair];
    });
}
