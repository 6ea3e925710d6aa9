import { summarizeDescription, type SemanticStage } from "@thinktank/search";
import type { Skill } from "../skill-types.js";
import { EntryIndex, type EntryFields, type EntrySearchOptions } from "./entry-index.js";

/** One skill a search found: which skill it is, what it does in one line, and where the model reads it. */
export interface SkillSearchHit {
  /** `<category>:<name>`: `public:pdf`, `custom:x`, `plugin:sales:call-prep`. */
  readonly identity: string;
  readonly name: string;
  /** The description's first sentence, whitespace collapsed, cut on a word to `descriptionChars`. */
  readonly description: string;
  /** The SKILL.md path the model reads (`/mnt/skills/plugins/sales/call-prep/SKILL.md`). */
  readonly location: string;
  /** Relevance, higher is better; comparable only within one search. */
  readonly score: number;
}

export interface SkillSearchIndexOptions extends EntrySearchOptions {
  /** The longest one-line description a hit carries. @default 160 */
  readonly descriptionChars?: number;
}

/**
 * Ranked search over the skills the model may use: enabled ones not marked
 * `disable-model-invocation` (the set `<skill_system>` lists). Public, custom and plugin skills
 * alike; ranked by the engine of @thinktank/search on name, description, plugin and the body's
 * outline. Each skills snapshot carries one (`SkillsSnapshot.search`), built on its first search.
 */
export class SkillSearchIndex {
  readonly #index: EntryIndex<Skill>;
  readonly #searchable: readonly Skill[];
  readonly #descriptionChars: number;

  constructor(skills: readonly Skill[], options: SkillSearchIndexOptions = {}) {
    const searchable = skills.filter((skill) => skill.enabled && !skill.disableModelInvocation);
    this.#searchable = searchable;
    this.#index = new EntryIndex(searchable, skillFields, (skill) => [skill.name, skill.identity], options);
    this.#descriptionChars = options.descriptionChars ?? 160;
  }

  /** How many skills can be found. */
  get size(): number {
    return this.#index.size;
  }

  /** The skills that best match what the user asks, best first. An empty query is VALIDATION_FAILED; a bad limit too. */
  search(query: string, options: { readonly limit?: number } = {}): SkillSearchHit[] {
    return this.#index.search(query, options.limit).map(({ entry: skill, score }) => this.#hit(skill, score));
  }

  /**
   * `search` blended with meaning (config.search.embeddings): the keyword top and the skills whose
   * name and description lie nearest the query by embedding, each scored by both (SemanticStage).
   * When the embedder fails or answers later than `timeoutMs`, the keyword ranking; vectors that
   * arrive later are kept for the next search. Bad input as `search`.
   */
  async searchWithMeaning(query: string, stage: SemanticStage, options: { readonly limit?: number; readonly timeoutMs?: number } = {}): Promise<SkillSearchHit[]> {
    const limit = this.#index.effectiveLimit(options.limit);
    const keyword = this.search(query, { limit: Math.max(limit, stage.candidates) });
    if (this.#searchable.length === 0) return keyword;
    const documents = this.#searchable.map((skill) => ({ key: skill.identity, text: `${skill.name}: ${skill.whenToUse ? `${skill.description}\n${skill.whenToUse}` : skill.description}` }));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, options.timeoutMs ?? 3000, undefined)));
    const ranked = await Promise.race([stage.rank(query, keyword.map((hit) => ({ key: hit.identity, score: hit.score })), documents, limit).catch(() => undefined), late]).finally(() => clearTimeout(timer));
    if (!ranked) return keyword.slice(0, limit);
    // Equal blended scores (near-copies of one text) keep the keyword order, then the listing order, as `search` does.
    const keywordRank = new Map(keyword.map((hit, position) => [hit.identity, position]));
    const listed = new Map(this.#searchable.map((skill, position) => [skill.identity, { skill, position }]));
    const order = (key: string) => [keywordRank.get(key) ?? keyword.length, listed.get(key)?.position ?? 0] as const;
    return [...ranked]
      .sort((a, b) => b.score - a.score || order(a.key)[0] - order(b.key)[0] || order(a.key)[1] - order(b.key)[1])
      .flatMap(({ key, score }) => {
        const entry = listed.get(key);
        return entry ? [this.#hit(entry.skill, score)] : [];
      });
  }

  #hit(skill: Skill, score: number): SkillSearchHit {
    return { identity: skill.identity, name: skill.name, description: summarizeDescription(skill.description, this.#descriptionChars), location: skill.containerPath, score };
  }
}

/** What skill search reads of a skill (also the listing's joint ranking of skills and commands). */
export function skillFields(skill: Skill): EntryFields {
  return {
    name: skill.name,
    description: skill.whenToUse ? `${skill.description}\n${skill.whenToUse}` : skill.description,
    group: skill.category.startsWith("plugin:") ? skill.category.slice("plugin:".length) : "",
    outline: skill.outline ?? "",
    body: skill.bodyText ?? "",
  };
}
