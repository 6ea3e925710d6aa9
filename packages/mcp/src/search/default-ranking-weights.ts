import type { RankingWeights } from "./search-types.js";

/** The ranking used unless a caller overrides it; see `RankingWeights` for what each knob does. */
export const defaultRankingWeights: RankingWeights = {
  fields: { name: 3, server: 2, title: 2, lead: 2.1, body: 0.6, params: 0.5, paramDocs: 0.3 },
  lengthNormalization: { name: 0.75, server: 0, title: 0.5, lead: 0.6, body: 0.75, params: 0.5, paramDocs: 0.75 },
  k1: 2,
  synonym: 0.625,
  quoted: 0.4,
  context: 0.5,
  entity: 0.5,
  serverBoost: 0.25,
  mentionBoost: 1.5,
  coverage: 0.75,
  fullMatch: 0.2,
  nameMatch: 1.5,
  deprecated: 0.6,
  rerankDepth: 30,
  rerank: { actionAgree: 0, actionConflict: -0.61, numberAgree: 0.04, numberDisagree: -0.1, leadCoverage: 0.6, mention: 0, shortName: 0 },
};
