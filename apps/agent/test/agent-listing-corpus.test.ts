// Sub-agents beside 450 corpus skills (issue 27, "flat context at scale"): the request the model
// is sent (system prompt + tool definitions + the first message's context, o200k tokens as
// `inspect prompt` counts them) with 10, 100 and 250 agents installed, over the skills eval's
// requests and requests for what the plugin agents do. Sizes, not timings: the bounds hold on
// any machine. Skipped, saying why, without the corpus.
import { corpusLocation, needs } from "@thinktank/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { devGoldFile, heldOutGoldFile, readSkillGold } from "../../../packages/skills/eval/skill-gold.js";
import { agentRequests, measureAgentListing, type AgentListingSizes } from "./support/agent-listing-sizes.js";

const counts = [10, 100, 250] as const;

describe("request size with sub-agents installed beside 450 skills", { ...needs("corpus"), timeout: 900_000 }, () => {
  const sizes = new Map<number, AgentListingSizes>();

  beforeAll(async () => {
    const messages = [...readSkillGold(devGoldFile), ...readSkillGold(heldOutGoldFile)].map((pair) => pair.query).concat(agentRequests);
    for (const count of counts) sizes.set(count, await measureAgentListing(corpusLocation(), count, messages));
  }, 900_000);

  const at = (count: number) => sizes.get(count) as AgentListingSizes;

  it("compact: the largest request stays within 4,000 tokens and grows at most 300 tokens from 10 to 250 agents", () => {
    for (const count of counts) expect(at(count).compact.max, `${count} agents`).toBeLessThanOrEqual(4000);
    expect(at(250).compact.max - at(10).compact.max).toBeLessThanOrEqual(300);
    // Agents were offered (the bound covers requests that carry them), never more than three at once.
    for (const count of counts) {
      expect(at(count).compact.offeredAgents, `${count} agents`).toBeGreaterThanOrEqual(agentRequests.length / 2);
      expect(at(count).compact.mostAgents).toBeLessThanOrEqual(3);
    }
  });

  it("compact: the agents section is the same size for 10 or 250 agents; full lists every agent", () => {
    expect(at(10).compact.agentsSection).toBeGreaterThan(0);
    expect(Math.abs(at(250).compact.agentsSection - at(10).compact.agentsSection)).toBeLessThanOrEqual(2);
    for (const count of counts) expect(at(count).full.listed).toBe(count);
    expect(at(250).full.agentsSection).toBeGreaterThan(at(10).full.agentsSection * 10);
  });
});
