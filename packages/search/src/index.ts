// Public API of @thinktank/search: every export is listed here by name.
// Text analysis
export { splitWords, splitChunks } from "./text/split-words.js";
export type { WordChunk } from "./text/split-words.js";
export { TextAnalyzer } from "./text/text-analyzer.js";
export type { TextAnalyzerOptions } from "./text/text-analyzer.js";
export { defaultStopWords } from "./text/stop-words.js";
export { looksPlural } from "./text/looks-plural.js";
export { splitDescription, summarizeDescription } from "./text/summarize-description.js";
// Vocabulary and query planning
export { SynonymTable } from "./query/synonym-table.js";
export { defaultSynonymGroups } from "./query/default-synonyms.js";
export { PhraseHintTable } from "./query/phrase-hints.js";
export { defaultPhraseHints } from "./query/default-phrase-hints.js";
export type { PhraseHint } from "./query/default-phrase-hints.js";
export { planQuery } from "./query/query-plan.js";
export type { QueryPlan, QueryConcept, QueryAlternative, QueryIntent, QueryPlanContext, QueryWeights } from "./query/query-plan.js";
// Ranking
export { DocumentIndex } from "./ranking/document-index.js";
export type { DocumentIndexOptions, DocumentIndexWeights, SearchDocument } from "./ranking/document-index.js";
export { SegmentedIndex } from "./ranking/segmented-index.js";
export type { SegmentedIndexOptions, TopOptions } from "./ranking/segmented-index.js";
export { buildSegment } from "./ranking/document-segment.js";
export type { Segment, DocumentTerms, Postings } from "./ranking/document-segment.js";
export { compareScored } from "./ranking/top-documents.js";
export type { ScoredDocument } from "./ranking/top-documents.js";
export type { ScoringWeights } from "./ranking/scoring-weights.js";
export { inverseDocumentFrequency } from "./ranking/search-stats.js";
export type { SearchStats } from "./ranking/search-stats.js";
export { updateSet } from "./ranking/collection-stats.js";
// Baseline and evaluation
export { PlainBm25Index } from "./baseline/plain-bm25-index.js";
export type { PlainDocument } from "./baseline/plain-bm25-index.js";
export { evaluateRanking } from "./eval/evaluate-ranking.js";
export type { Ranker, RankingPair, RankingQuality, RankingMiss } from "./eval/evaluate-ranking.js";
// The optional embeddings stage
export { cosineSimilarity } from "./embeddings/embedder.js";
export type { Embedder } from "./embeddings/embedder.js";
export { OpenAiCompatibleEmbedder } from "./embeddings/openai-compatible-embedder.js";
export type { OpenAiCompatibleEmbedderOptions } from "./embeddings/openai-compatible-embedder.js";
export { embedderFromConfig } from "./embeddings/embedder-from-config.js";
export { SemanticStage } from "./embeddings/semantic-stage.js";
export type { SemanticStageOptions, KeyedScore, EmbeddableDocument } from "./embeddings/semantic-stage.js";
