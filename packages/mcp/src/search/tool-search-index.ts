import { createHash } from "node:crypto";
import { ThinktankError } from "@thinktank/core";
import {
  compareScored,
  defaultPhraseHints,
  defaultSynonymGroups,
  PhraseHintTable,
  planQuery,
  SegmentedIndex,
  SynonymTable,
  TextAnalyzer,
  type PhraseHint,
  type TextAnalyzerOptions,
} from "@thinktank/search";
import type { CatalogServer } from "../catalog/catalog-types.js";
import { ActionVocabulary } from "./action-vocabulary.js";
import { defaultActionGroups, type ActionGroup } from "./default-actions.js";
import { defaultRankingWeights } from "./default-ranking-weights.js";
import { defaultWrapperPath } from "./default-wrapper-path.js";
import { presentResults } from "./present-results.js";
import { intentProfile, rerankFeatures, rerankTools, type RerankContext, type ScoredTool } from "./rerank-tools.js";
import { fieldNames, rerankFeatureNames, searchDetails, type RankingWeights, type RerankFeature, type ToolSearchOptions, type ToolSearchResult, type WrapperPathResolver } from "./search-types.js";
import { layerProfiles, ServerProfiles } from "./server-profiles.js";
import { buildServerSegment, type ServerSegment } from "./server-segment.js";
import { serverMentions, serverRelevance } from "./server-signals.js";
import { ToolSearchOverlay } from "./tool-search-overlay.js";

export interface ToolSearchIndexOptions {
  /** Results when a search names no limit (config.search.default_limit). @default 10 */
  readonly defaultLimit?: number;
  /** The most results one search returns; larger limits are capped (config.search.max_limit). @default 50 */
  readonly maxLimit?: number;
  /** Maps a tool to its generated wrapper's path (detail "full"). @default defaultWrapperPath */
  readonly wrapperPath?: WrapperPathResolver;
  /** Ranking knobs; unspecified ones keep their defaults. @default defaultRankingWeights */
  readonly weights?: Partial<RankingWeights>;
  /** Synonym groups. @default defaultSynonymGroups */
  readonly synonyms?: readonly (readonly string[])[];
  /** Tokenisation options (stop words, minimum word length). */
  readonly analyzer?: TextAnalyzerOptions;
  /** Everyday phrases and what tools call them ("who am I": current user). @default defaultPhraseHints */
  readonly phraseHints?: readonly PhraseHint[];
  /** The actions that tell sibling tools apart (list, get, create ...), for the second stage. @default defaultActionGroups */
  readonly actions?: readonly ActionGroup[];
}

/** One candidate of a search as the ranking saw it (see `ToolSearchIndex.explain`). */
export interface RankingExplanation {
  readonly server: string;
  readonly name: string;
  /** The first stage's score. */
  readonly keywordScore: number;
  readonly features: Readonly<Record<RerankFeature, number>>;
  /** The final score (the keyword score times e^(Σ weight × feature)). */
  readonly score: number;
}

/** What `syncServers` did. */
export interface SearchIndexSyncReport {
  readonly added: string[];
  readonly updated: string[];
  readonly removed: string[];
  readonly unchanged: string[];
}

/**
 * Ranked keyword search over tool catalogs (the engine of `search_tools`). Each server is indexed
 * on its own, so refreshing one server's tool list re-indexes only that server. Built-in and
 * registered tools join as extra "servers" in the same catalog format.
 */
export class ToolSearchIndex {
  readonly #analyzer: TextAnalyzer;
  readonly #synonyms: SynonymTable;
  readonly #actions: ActionVocabulary;
  readonly #phrases: PhraseHintTable;
  readonly #weights: RankingWeights;
  readonly #defaultLimit: number;
  readonly #maxLimit: number;
  readonly #wrapperPath: WrapperPathResolver;
  /** The engine: one segment per server, keyed by the server's name. */
  readonly #engine: SegmentedIndex<ServerSegment>;
  readonly #profiles = new ServerProfiles();

  constructor(options: ToolSearchIndexOptions = {}) {
    this.#defaultLimit = positiveInteger(options.defaultLimit ?? 10, "defaultLimit");
    this.#maxLimit = positiveInteger(options.maxLimit ?? 50, "maxLimit");
    this.#wrapperPath = options.wrapperPath ?? defaultWrapperPath;
    this.#weights = { ...defaultRankingWeights, ...options.weights };
    this.#analyzer = new TextAnalyzer(options.analyzer);
    this.#synonyms = new SynonymTable(options.synonyms ?? defaultSynonymGroups, this.#analyzer);
    this.#actions = new ActionVocabulary(options.actions ?? defaultActionGroups, this.#analyzer);
    this.#phrases = new PhraseHintTable(options.phraseHints ?? defaultPhraseHints, this.#analyzer);
    this.#engine = new SegmentedIndex<ServerSegment>({ fields: fieldNames, weights: this.#weights });
  }

  /** Number of tools indexed. */
  get toolCount(): number {
    return this.#engine.documentCount;
  }

  /** The most results one search returns. */
  get maxLimit(): number {
    return this.#maxLimit;
  }

  /** The number of results a search with this `limit` option returns at most (default applied, cap enforced). */
  effectiveLimit(limit: number | undefined): number {
    return Math.min(limit === undefined ? this.#defaultLimit : positiveInteger(limit, "limit"), this.#maxLimit);
  }

  /** Every indexed tool (of one server, when given), by server then name. Unknown server: MCP_SERVER_NOT_FOUND. */
  listTools(server?: string): { server: string; name: string }[] {
    if (server !== undefined) this.#segmentOf(server);
    const servers = server === undefined ? this.serverNames() : [server];
    return servers.flatMap((name) => (this.#engine.segment(name)?.tools ?? []).map((tool) => ({ server: name, name: tool.name })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
  }

  /** One tool at the given detail (score 0), or undefined when it is not indexed. */
  describeTool(server: string, name: string, detail: ToolSearchOptions["detail"] = "name"): ToolSearchResult | undefined {
    const segment = this.#engine.segment(server);
    const document = segment?.tools.findIndex((candidate) => candidate.name === name) ?? -1;
    return segment && document >= 0 ? presentResults([{ segment, document, score: 0 }], detail ?? "name", this.#wrapperPath)[0] : undefined;
  }

  /** A tool as plain text (name, title, description), e.g. for embedding; undefined when not indexed. */
  toolText(server: string, name: string): string | undefined {
    const tool = this.#engine.segment(server)?.tools.find((candidate) => candidate.name === name);
    if (!tool) return undefined;
    const title = typeof tool.title === "string" ? `${tool.title}\n` : "";
    return `${server} ${tool.name}\n${title}${(tool.description ?? "").slice(0, 1000)}`;
  }

  /** Names of the indexed servers, sorted. */
  serverNames(): string[] {
    return this.#engine.segments().map((segment) => segment.key).sort();
  }

  /** Indexes a server, replacing its previous tool list. Returns false (and does nothing) when the list is unchanged. */
  setServer(server: CatalogServer): boolean {
    const fingerprint = fingerprintOf(server);
    if (this.#engine.segment(server.server)?.fingerprint === fingerprint) return false;
    const segment = buildServerSegment(server, fingerprint, this.#analyzer, this.#actions);
    const previous = this.#engine.put(segment);
    if (previous) this.#profiles.remove(previous);
    this.#profiles.add(segment);
    return true;
  }

  /** Drops a server's tools; false when it was not indexed. */
  removeServer(name: string): boolean {
    const segment = this.#engine.remove(name);
    if (!segment) return false;
    this.#profiles.remove(segment);
    return true;
  }

  /** Makes the index hold exactly these servers, re-indexing only those whose tool lists changed. */
  syncServers(servers: readonly CatalogServer[]): SearchIndexSyncReport {
    const report: SearchIndexSyncReport = { added: [], updated: [], removed: [], unchanged: [] };
    const wanted = new Set(servers.map((server) => server.server));
    for (const name of this.serverNames()) {
      if (!wanted.has(name)) {
        this.removeServer(name);
        report.removed.push(name);
      }
    }
    for (const server of servers) {
      const existed = this.#engine.segment(server.server) !== undefined;
      const changed = this.setServer(server);
      (changed ? (existed ? report.updated : report.added) : report.unchanged).push(server.server);
    }
    return report;
  }

  /**
   * One caller's own servers (a user's), indexed like the index's but kept apart, for
   * `search(query, { overlay })`. `previous` (this caller's last overlay) lends the segments of
   * servers whose tools did not change; `wrapperPath` places their wrappers (detail "full").
   * Costs what indexing these servers costs; the index itself is not touched.
   */
  overlay(servers: readonly CatalogServer[], options: { readonly previous?: ToolSearchOverlay; readonly wrapperPath?: WrapperPathResolver } = {}): ToolSearchOverlay {
    const segments = servers.map((server) => {
      const fingerprint = fingerprintOf(server);
      const kept = options.previous?.segment(server.server);
      return kept?.fingerprint === fingerprint ? kept : buildServerSegment(server, fingerprint, this.#analyzer, this.#actions);
    });
    return new ToolSearchOverlay(segments, options.wrapperPath);
  }

  /**
   * The tools that best match a natural-language query, best first; ties go by server, then name.
   * An empty query with a server filter lists that server's tools by name. With `overlay`, its
   * servers are searched too, ranked as if they were in the index (a server the index holds wins).
   */
  search(query: string, options: ToolSearchOptions = {}): ToolSearchResult[] {
    const detail = options.detail ?? "name";
    if (!searchDetails.includes(detail)) {
      throw new ThinktankError("VALIDATION_FAILED", `detail must be one of ${searchDetails.join(", ")}; got ${JSON.stringify(detail)}`);
    }
    const limit = this.effectiveLimit(options.limit);
    if (typeof query !== "string") throw new ThinktankError("VALIDATION_FAILED", `query must be a string; got ${typeof query}`);
    const allowed = options.servers;
    const extra = this.#outside(options.overlay).filter((segment) => !allowed || allowed(segment.key));
    const segments = options.server === undefined ? this.#engine.segments().filter((segment) => !allowed || allowed(segment.key)) : [this.#segmentOf(options.server, extra)];
    const wrapperPath = this.#wrapperPathWith(options.overlay);
    if (query.trim() === "") {
      if (options.server === undefined) throw new ThinktankError("VALIDATION_FAILED", "query is empty: say what the tool should do, or pass a server to list its tools");
      // A server's tools by name: the order equal scores take.
      const listed = segments.flatMap((segment) => segment.tools.map((_, document): ScoredTool => ({ segment, document, score: 0 })));
      return presentResults(listed.sort((a, b) => compareScored(a.score, a.segment, a.document, b)).slice(0, limit), detail, wrapperPath);
    }
    const found = this.#keywordTop(query, segments, options.server === undefined && !allowed, Math.max(limit, this.#weights.rerankDepth), extra, options.overlay);
    if (!found) return [];
    const ranked = this.#weights.rerankDepth > 0 ? rerankTools(found.candidates, found.context, this.#weights) : found.candidates;
    return presentResults(ranked.slice(0, limit), detail, wrapperPath);
  }

  /** The overlay's servers the index does not hold (the index's own win). */
  #outside(overlay: ToolSearchOverlay | undefined): ServerSegment[] {
    if (!overlay) return [];
    return overlay.segments().filter((segment) => this.#engine.segment(segment.key) === undefined);
  }

  #wrapperPathWith(overlay: ToolSearchOverlay | undefined): WrapperPathResolver {
    if (!overlay) return this.#wrapperPath;
    return (server, tool) => (this.#engine.segment(server) === undefined ? overlay.wrapperPath(server, tool) : undefined) ?? this.#wrapperPath(server, tool);
  }

  /**
   * How a query was ranked: the keyword top (`depth` tools, default the re-ranking depth) with each
   * tool's keyword score, its second-stage features and its final score, best first. For tuning
   * the ranking (eval/tune-weights.ts) and for seeing why a tool ranks where it does.
   */
  explain(query: string, options: { readonly server?: string; readonly depth?: number } = {}): RankingExplanation[] {
    const segments = options.server === undefined ? this.#engine.segments() : [this.#segmentOf(options.server)];
    const found = query.trim() === "" ? undefined : this.#keywordTop(query, segments, options.server === undefined, options.depth ?? Math.max(1, this.#weights.rerankDepth));
    if (!found) return [];
    const explained = found.candidates.map((candidate) => {
      const features = rerankFeatures(candidate, found.context);
      let sum = 0;
      if (this.#weights.rerankDepth > 0) for (const feature of rerankFeatureNames) sum += this.#weights.rerank[feature] * features[feature];
      return { server: candidate.segment.key, name: candidate.segment.tools[candidate.document]?.name ?? "", keywordScore: candidate.score, features, score: candidate.score * Math.exp(sum) };
    });
    return explained.sort((a, b) => b.score - a.score);
  }

  /** The first stage: the `depth` best tools by keyword score, and what the second stage needs to know about the query. */
  #keywordTop(
    query: string,
    segments: readonly ServerSegment[],
    global: boolean,
    depth: number,
    extra: readonly ServerSegment[] = [],
    overlay?: ToolSearchOverlay,
  ): { candidates: ScoredTool[]; context: RerankContext } | undefined {
    const plan = planQuery(query, {
      analyzer: this.#analyzer,
      synonyms: this.#synonyms,
      phrases: this.#phrases,
      weights: this.#weights,
      isKnownTerm: (term) => this.#engine.has(term) || (extra.length > 0 && overlay?.hasTerm(term) === true),
    });
    if (plan.concepts.length === 0) return undefined;
    const shared = this.#profiles.snapshot();
    const profiles = extra.length > 0 && overlay ? layerProfiles(shared, overlay.profiles()) : shared;
    const relevance = serverRelevance(plan, profiles, this.#weights);
    const segmentOf = (server: string): ServerSegment | undefined => this.#engine.segment(server) ?? extra.find((segment) => segment.key === server);
    const mentions = serverMentions(plan, this.#engine.stats(extra), profiles, segmentOf);
    const candidates = this.#engine.top(plan, {
      depth,
      ...(global ? {} : { within: segments }),
      ...(extra.length > 0 ? { extra } : {}),
      segmentFactor: (segment) => (1 + this.#weights.serverBoost * (relevance.get(segment.key) ?? 0)) * (1 + this.#weights.mentionBoost * (mentions.get(segment.key) ?? 0)),
    });
    return { candidates, context: { intent: intentProfile(plan.intent, this.#actions), concepts: plan.concepts, mentions } };
  }

  #segmentOf(server: string, extra: readonly ServerSegment[] = []): ServerSegment {
    const segment = this.#engine.segment(server) ?? extra.find((candidate) => candidate.key === server);
    if (segment) return segment;
    const known = [...this.serverNames(), ...extra.map((candidate) => candidate.key).sort()];
    throw new ThinktankError("MCP_SERVER_NOT_FOUND", `unknown server '${server}'; known servers: ${known.join(", ") || "(none)"}`, { details: { server, known } });
  }
}

function fingerprintOf(server: CatalogServer): string {
  return createHash("sha1").update(JSON.stringify([server.tools, server.package ?? null, server.serverInfo ?? null])).digest("hex");
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) throw new ThinktankError("VALIDATION_FAILED", `${name} must be a positive integer; got ${JSON.stringify(value)}`);
  return value;
}
