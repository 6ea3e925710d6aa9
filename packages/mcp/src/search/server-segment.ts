import { buildSegment, looksPlural, splitWords, type Segment, type TextAnalyzer } from "@thinktank/search";
import type { CatalogServer, CatalogTool } from "../catalog/catalog-types.js";
import type { ActionProfile, ActionVocabulary } from "./action-vocabulary.js";
import { fieldNames } from "./search-types.js";
import { serverMentionTerms, serverNameTerms, toolFields } from "./tool-fields.js";

export const fieldCount = fieldNames.length;

/**
 * The search index of one server's tools: an engine segment (keyed by the server's name, one
 * document per tool, ids are tool names) with what the tool ranking adds. Servers change
 * independently (a server's tool list is refreshed on its own), so each is indexed on its own.
 */
export interface ServerSegment extends Segment {
  readonly tools: readonly CatalogTool[];
  /** The server as one document (names, tool names, first sentences): term → frequency. */
  readonly profile: ReadonlyMap<string, number>;
  readonly profileLength: number;
  /** The words that name the server outright in a query (which mark it as aimed at this server). */
  readonly nameOfServer: readonly string[];
  /** Per tool: the actions its name names (list_issues: list, many). */
  readonly actions: readonly ActionProfile[];
}

export function buildServerSegment(server: CatalogServer, fingerprint: string, analyzer: TextAnalyzer, vocabulary: ActionVocabulary): ServerSegment {
  const serverTerms = serverNameTerms(server, analyzer);
  const ownName = new Set(serverTerms);
  const actions: ActionProfile[] = [];
  const profile = new Map<string, number>();
  let profileLength = 0;
  const addToProfile = (terms: readonly string[], weight: number): void => {
    for (const term of terms) profile.set(term, (profile.get(term) ?? 0) + weight);
    profileLength += terms.length * weight;
  };
  // The server's names weigh as much in its profile as a word every tool uses.
  addToProfile(serverTerms, Math.max(3, server.tools.length));

  const documents = server.tools.map((tool) => {
    const fields = toolFields(tool, serverTerms, analyzer);
    actions.push(nameActions(tool.name, analyzer, vocabulary));
    addToProfile(fields.name, 1);
    addToProfile(fields.title, 1);
    addToProfile(fields.lead, 1);
    return {
      id: tool.name,
      fields: fieldNames.map((field) => fields[field]),
      // The server's own name says nothing about which of its tools is meant.
      nameTerms: [...new Set(fields.name)].filter((term) => !ownName.has(term)),
      // A tool whose title or first sentence says it is deprecated.
      deprecated: fields.title.includes("deprec") || fields.lead.includes("deprec"),
    };
  });
  const segment = buildSegment(server.server, fingerprint, fieldCount, documents);
  return { ...segment, tools: server.tools, profile, profileLength, nameOfServer: serverMentionTerms(server, analyzer), actions };
}

/** The action profile of a tool name: its verbs and whether its object is plural. */
function nameActions(name: string, analyzer: TextAnalyzer, vocabulary: ActionVocabulary): ActionProfile {
  const terms: string[] = [];
  const plural: boolean[] = [];
  for (const word of splitWords(name)) {
    const term = analyzer.term(word);
    if (term === undefined) continue;
    terms.push(term);
    plural.push(looksPlural(word));
  }
  return vocabulary.profile(terms, plural);
}
