import { summarizeDescription } from "@thinktank/search";
import { EntryIndex, type EntryFields } from "./entry-index.js";
import type { SkillSearchIndexOptions } from "./skill-search-index.js";

/** A slash command as search sees it: a plugin command, or a skill the user can run (the agent's command entries fit). */
export interface SearchableCommand {
  readonly kind: "command" | "skill";
  readonly name: string;
  /** `/<plugin>:<name>` or `/<name>`. */
  readonly invocation: string;
  readonly description: string;
  readonly plugin?: string;
  /** For a skill: its identity. */
  readonly identity?: string;
  readonly argumentHint?: string;
}

/** One command a search found. */
export interface CommandSearchHit {
  readonly kind: "command" | "skill";
  readonly invocation: string;
  readonly name: string;
  /** The description's first sentence, cut on a word to `descriptionChars`. */
  readonly description: string;
  readonly plugin?: string;
  readonly identity?: string;
  readonly argumentHint?: string;
  readonly score: number;
}

/**
 * Ranked search over slash commands (plugin commands and user-invocable skills), on the same
 * engine, fields and weights as `SkillSearchIndex`. A separate index because commands come from
 * the plugins and skills snapshots together (the agent's command list), while skill search
 * belongs to the skills snapshot alone; build one per command list, it indexes on first search.
 */
export class CommandSearchIndex {
  readonly #index: EntryIndex<SearchableCommand>;
  readonly #descriptionChars: number;

  constructor(commands: readonly SearchableCommand[], options: SkillSearchIndexOptions = {}) {
    this.#index = new EntryIndex(commands, commandFields, (command) => [command.name, command.invocation, command.invocation.slice(1), ...(command.identity ? [command.identity] : [])], options);
    this.#descriptionChars = options.descriptionChars ?? 160;
  }

  get size(): number {
    return this.#index.size;
  }

  search(query: string, options: { readonly limit?: number } = {}): CommandSearchHit[] {
    return this.#index.search(query, options.limit).map(({ entry, score }) => ({
      kind: entry.kind,
      invocation: entry.invocation,
      name: entry.name,
      description: summarizeDescription(entry.description, this.#descriptionChars),
      ...(entry.plugin !== undefined ? { plugin: entry.plugin } : {}),
      ...(entry.identity !== undefined ? { identity: entry.identity } : {}),
      ...(entry.argumentHint !== undefined ? { argumentHint: entry.argumentHint } : {}),
      score,
    }));
  }
}

/** What command search reads of a command (also the listing's joint ranking of skills and commands). */
export function commandFields(command: SearchableCommand): EntryFields {
  return { name: command.name, description: command.description, group: command.plugin ?? "", outline: "", body: "" };
}
