import fs from "node:fs";
import path from "node:path";
import { corpusDir } from "./corpus.js";

/**
 * Rebuilds the upstream layout of anthropics/skills at `target` from the corpus copy (which
 * flattened `skills/<name>` to `<name>`): `.claude-plugin/marketplace.json` as copied, and
 * `skills/<name>/...` for every skill the corpus has, so its `source: "./"` entries resolve
 * (those naming skills left out of the corpus still do not). Returns `target`.
 */
export function anthropicSkillsRepository(target: string): string {
  const corpus = path.join(corpusDir(), "anthropic-skills");
  fs.mkdirSync(path.join(target, ".claude-plugin"), { recursive: true });
  fs.copyFileSync(path.join(corpus, ".claude-plugin", "marketplace.json"), path.join(target, ".claude-plugin", "marketplace.json"));
  for (const entry of fs.readdirSync(corpus, { withFileTypes: true })) {
    if (entry.isDirectory() && !entry.name.startsWith(".")) fs.cpSync(path.join(corpus, entry.name), path.join(target, "skills", entry.name), { recursive: true });
  }
  return target;
}

/** A copy of a corpus folder (relative to the corpus) at `target`. Returns `target`. */
export function copyFromCorpus(relative: string, target: string): string {
  fs.cpSync(path.join(corpusDir(), relative), target, { recursive: true });
  return target;
}
