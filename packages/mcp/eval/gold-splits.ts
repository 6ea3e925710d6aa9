import path from "node:path";
import { readGoldSet, type GoldPair } from "../src/search/gold-set.js";
import { devV2File, goldSetFile, testV2File } from "./eval-catalog.js";

/** A group of gold pairs reported on its own. */
export interface GoldSplit {
  /** Short name for `--misses` ("dev", "test", "dev-v2", "test-v2", ...). */
  readonly key: string;
  readonly label: string;
  readonly pairs: readonly GoldPair[];
  /** Also measured with the semantic stage and the model's choice (the tuned-on set and the held-out set). */
  readonly headline: boolean;
}

/**
 * The gold pairs and how they are reported. By default: gold-set.jsonl's dev split and its old
 * held-out split (both tuned on since the second round), gold/dev-v2.jsonl (tuned on) and
 * gold/test-v2.jsonl (held out: never tuned on), then all tuned-on pairs together and the
 * built-in and registered tools' pairs. With one `file`, its own dev and test splits.
 */
export function loadGoldSplits(file?: string): { pairs: GoldPair[]; splits: GoldSplit[]; source: string } {
  if (file !== undefined) {
    const pairs = readGoldSet(file);
    return {
      pairs,
      source: path.relative(process.cwd(), file),
      splits: [
        { key: "dev", label: "dev (tuned on)", pairs: pairs.filter((p) => p.split === "dev"), headline: true },
        { key: "test", label: "test (held out)", pairs: pairs.filter((p) => p.split === "test"), headline: true },
        { key: "all", label: "all", pairs, headline: false },
      ],
    };
  }
  const first = readGoldSet(goldSetFile);
  const devV2 = readGoldSet(devV2File);
  const testV2 = readGoldSet(testV2File);
  const tuned = [...first, ...devV2];
  return {
    pairs: [...tuned, ...testV2],
    source: "packages/mcp/eval/gold-set.jsonl + gold/dev-v2.jsonl + gold/test-v2.jsonl",
    splits: [
      { key: "dev", label: "dev (tuned on)", pairs: first.filter((p) => p.split === "dev"), headline: true },
      { key: "test", label: "old held-out (tuned on now)", pairs: first.filter((p) => p.split === "test"), headline: false },
      { key: "dev-v2", label: "dev v2 (tuned on)", pairs: devV2, headline: false },
      { key: "test-v2", label: "held-out v2 (never tuned)", pairs: testV2, headline: true },
      { key: "tuned", label: "all tuned-on pairs", pairs: tuned, headline: false },
      { key: "builtin", label: "built-in + registered tools", pairs: [...tuned, ...testV2].filter((p) => p.kind === "builtin"), headline: false },
    ],
  };
}
