// Sub-agents in every request (issue 27, "flat context at scale"): tokens per request (system prompt
// + tool definitions + what the first message carries) with 10, 100 and 250 agents installed beside
// 450 corpus skills, in compact listing over the skills eval's requests and requests for what the
// plugin agents do, and in full listing; agents are the corpus's plugin agents and near-copies grown
// from them (growAgents), and, as the worst case for what messages carry, a catalog grown from the
// plugins' skills too (an agent for every task, so most requests are offered agents). The size test
// (apps/agent/test/agent-listing-corpus.test.ts) asserts the bounds.
import { devGoldFile, heldOutGoldFile, readSkillGold } from "../packages/skills/eval/skill-gold.js";
import { agentRequests, measureAgentListing, type AgentListingSizes } from "../apps/agent/test/support/agent-listing-sizes.js";
import type { Benchmark, Measurement } from "./harness.js";

const counts = [10, 100, 250] as const;

const benchmark: Benchmark = {
  title: "Sub-agents per request beside 450 skills: full and compact listing",
  issue: 27,
  async run(context): Promise<Measurement[]> {
    if (!context.corpus) {
      context.log("corpus not found: agent listing figures need ../shared/corpus");
      return [];
    }
    const messages = [...readSkillGold(devGoldFile), ...readSkillGold(heldOutGoldFile)].map((pair) => pair.query).concat(agentRequests);
    const results: AgentListingSizes[] = [];
    for (const fromSkills of [false, true]) {
      for (const count of counts) {
        // At 10 agents both catalogs are the same (the plugin agents and four copies of them).
        if (fromSkills && count === 10) continue;
        const result = await measureAgentListing(context.corpus, count, messages, { fromSkills });
        context.log(`${count} agents${fromSkills ? " (grown from skills too)" : ""}: compact max ${result.compact.max} (median ${result.compact.median}, agents section ${result.compact.agentsSection}); full ${result.full.total} (agents section ${result.full.agentsSection})`);
        results.push(result);
      }
    }
    const measurements: Measurement[] = results.map((result) => ({
      name: `largest request, ${result.agents} agents${result.fromSkills ? " grown from skills too" : ""} + ${result.skills} skills (compact; system prompt + tools + message context)`,
      value: result.compact.max,
      unit: "tokens",
      baseline: { name: "full listing", value: result.full.total, unit: "tokens" },
      stats: {
        median: result.compact.median,
        "system prompt": result.compact.systemPrompt,
        "agents section": result.compact.agentsSection,
        tools: result.compact.tools,
        "message context max": result.compact.contextMax,
        "requests offered agents": result.compact.offeredAgents,
        "most agents offered": result.compact.mostAgents,
        "most agents named": result.compact.mostNamedAgents,
        "full agents section": result.full.agentsSection,
        requests: result.compact.requests,
      },
      target: "<= 4,000 tokens",
      pass: result.compact.max <= 4000,
    }));
    const ten = results[0] as AgentListingSizes;
    for (const most of results.filter((result) => result.agents === 250)) {
      measurements.push({
        name: `growth of the largest request from 10 to 250 agents${most.fromSkills ? " grown from skills too" : ""} (compact)`,
        value: most.compact.max - ten.compact.max,
        unit: "tokens",
        baseline: { name: "full listing", value: most.full.total - ten.full.total, unit: "tokens" },
        stats: { "system prompt growth": most.compact.systemPrompt - ten.compact.systemPrompt, "median growth": most.compact.median - ten.compact.median },
        target: "<= 300 tokens",
        pass: most.compact.max - ten.compact.max <= 300,
      });
    }
    return measurements;
  },
};

export default benchmark;
