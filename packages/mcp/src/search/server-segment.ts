import type { CatalogServer, CatalogTool } from "../catalog/catalog-types.js";
import { looksPlural, type ActionProfile, type ActionVocabulary } from "./action-vocabulary.js";
import { fieldNames } from "./search-types.js";
import type { TextAnalyzer } from "./text-analyzer.js";
import { splitWords } from "./split-words.js";
import { serverMentionTerms, serverNameTerms, toolFields } from "./tool-fields.js";

export const fieldCount = fieldNames.length;

/** Where one term occurs in a server's tools: tool indexes and, per tool, the term's frequency in each field. */
export interface Postings {
  readonly tools: Int32Array;
  /** `tools.length × fieldCount` frequencies, tool by tool. */
  readonly frequencies: Float32Array;
}

/**
 * The search index of one server's tools. Servers change independently (a server's tool list is
 * refreshed on its own), so each is indexed on its own and swapped in or out whole.
 */
export interface ServerSegment {
  readonly server: string;
  readonly fingerprint: string;
  readonly tools: readonly CatalogTool[];
  /** `tools.length × fieldCount` field lengths, in terms. */
  readonly fieldLengths: Float32Array;
  readonly postings: ReadonlyMap<string, Postings>;
  /** Per tool: the distinct terms of its name that are not the server's own name. */
  readonly nameTerms: readonly (readonly string[])[];
  /** The server as one document (names, tool names, first sentences): term → frequency. */
  readonly profile: ReadonlyMap<string, number>;
  readonly profileLength: number;
  /** The words that name the server outright in a query (which mark it as aimed at this server). */
  readonly nameOfServer: readonly string[];
  /** 1 for a tool whose title or first sentence says it is deprecated. */
  readonly deprecated: Uint8Array;
  /** Per tool: the actions its name names (list_issues: list, many). */
  readonly actions: readonly ActionProfile[];
}

export function buildServerSegment(server: CatalogServer, fingerprint: string, analyzer: TextAnalyzer, vocabulary: ActionVocabulary): ServerSegment {
  const serverTerms = serverNameTerms(server, analyzer);
  const ownName = new Set(serverTerms);
  const fieldLengths = new Float32Array(server.tools.length * fieldCount);
  const building = new Map<string, { tools: number[]; frequencies: number[] }>();
  const nameTerms: string[][] = [];
  const deprecated = new Uint8Array(server.tools.length);
  const actions: ActionProfile[] = [];
  const profile = new Map<string, number>();
  let profileLength = 0;
  const addToProfile = (terms: readonly string[], weight: number): void => {
    for (const term of terms) profile.set(term, (profile.get(term) ?? 0) + weight);
    profileLength += terms.length * weight;
  };
  // The server's names weigh as much in its profile as a word every tool uses.
  addToProfile(serverTerms, Math.max(3, server.tools.length));

  server.tools.forEach((tool, toolIndex) => {
    const fields = toolFields(tool, serverTerms, analyzer);
    const counts = new Map<string, Float32Array>();
    fieldNames.forEach((field, fieldIndex) => {
      const terms = fields[field];
      fieldLengths[toolIndex * fieldCount + fieldIndex] = terms.length;
      for (const term of terms) {
        let row = counts.get(term);
        if (!row) counts.set(term, (row = new Float32Array(fieldCount)));
        row[fieldIndex] = (row[fieldIndex] ?? 0) + 1;
      }
    });
    for (const [term, row] of counts) {
      let entry = building.get(term);
      if (!entry) building.set(term, (entry = { tools: [], frequencies: [] }));
      entry.tools.push(toolIndex);
      for (const value of row) entry.frequencies.push(value);
    }
    nameTerms.push([...new Set(fields.name)].filter((term) => !ownName.has(term)));
    actions.push(nameActions(tool.name, analyzer, vocabulary));
    if (fields.title.includes("deprec") || fields.lead.includes("deprec")) deprecated[toolIndex] = 1;
    addToProfile(fields.name, 1);
    addToProfile(fields.title, 1);
    addToProfile(fields.lead, 1);
  });

  const postings = new Map<string, Postings>();
  for (const [term, entry] of building) {
    postings.set(term, { tools: Int32Array.from(entry.tools), frequencies: Float32Array.from(entry.frequencies) });
  }
  return { server: server.server, fingerprint, tools: server.tools, fieldLengths, postings, nameTerms, profile, profileLength, nameOfServer: serverMentionTerms(server, analyzer), deprecated, actions };
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
