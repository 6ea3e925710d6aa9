// Sub-agents beside 450 corpus skills (issue 27, "flat context at scale"): the request the model
// is sent (system prompt + tool definitions + the first message's context, o200k tokens as
// `inspect prompt` counts them) with 10 and 250 agents installed (the bench adds 100), over the
// skills eval's requests and requests for what the plugin agents do; 250 agents twice: near-copies
// of the plugin agents, and a catalog grown from the plugins' skills too (most requests are
// offered agents). Sizes, not timings: the bounds hold on any machine. Skipped, saying why,
// without the corpus.
import { corpusLocation, needs } from "@thinktank/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { devGoldFile, heldOutGoldFile, readSkillGold } from "../../../packages/skills/eval/skill-gold.js";
import { agentRequests, measureAgentListing, type AgentListingSizes } from "./support/agent-listing-sizes.js";

const catalogs = [
  { key: "10", agents: 10, fromSkills: false },
  { key: "250", agents: 250, fromSkills: false },
  { key: "250 from skills", agents: 250, fromSkills: true },
] as const;

describe("request size with sub-agents installed beside 450 skills", { ...needs("corpus"), timeout: 900_000 }, () => {
  const sizes = new Map<string, AgentListingSizes>();

  beforeAll(async () => {
    const messages = [...readSkillGold(devGoldFile), ...readSkillGold(heldOutGoldFile)].map((pair) => pair.query).concat(agentRequests);
    for (const { key, agents, fromSkills } of catalogs) sizes.set(key, await measureAgentListing(corpusLocation(), agents, messages, { fromSkills }));
  }, 900_000);

  const at = (key: string) => sizes.get(key) as AgentListingSizes;

  it("compact: the largest request stays within 4,000 tokens and grows at most 300 tokens from 10 to 250 agents", () => {
    for (const { key } of catalogs) expect(at(key).compact.max, key).toBeLessThanOrEqual(4000);
    expect(at("250").compact.max - at("10").compact.max).toBeLessThanOrEqual(300);
    expect(at("250 from skills").compact.max - at("10").compact.max).toBeLessThanOrEqual(300);
    // Agents were offered (the bound covers requests that carry them): at most three described and five named.
    for (const { key } of catalogs) {
      expect(at(key).compact.offeredAgents, key).toBeGreaterThanOrEqual(agentRequests.length / 2);
      expect(at(key).compact.mostAgents).toBeLessThanOrEqual(3);
      expect(at(key).compact.mostNamedAgents).toBeLessThanOrEqual(5);
    }
    expect(at("250 from skills").compact.offeredAgents).toBeGreaterThan(at("250").compact.offeredAgents);
  });

  it("compact: the agents section is the same size for 10 or 250 agents; full lists every agent", () => {
    expect(at("10").compact.agentsSection).toBeGreaterThan(0);
    expect(Math.abs(at("250").compact.agentsSection - at("10").compact.agentsSection)).toBeLessThanOrEqual(2);
    for (const { key, agents } of catalogs) expect(at(key).full.listed).toBe(agents);
    expect(at("250").full.agentsSection).toBeGreaterThan(at("10").full.agentsSection * 10);
  });
});
