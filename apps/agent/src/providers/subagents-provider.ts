import { ThinktankError } from "@thinktank/core";
import { createChatModel } from "@thinktank/models";
import { DelegationLimits, readAgentPrompt } from "@thinktank/subagents";
import type { RequestContext, RequestProvider } from "../request/request-context.js";
import type { AgentRuntime } from "../runtime/agent-runtime.js";
import { createTaskTool } from "../subagents/task-tool.js";

/**
 * The `task` tool (src/subagents), when config.subagents.enabled and the run's owner has at least
 * one enabled agent. Each run gets its own limits (subagents.max_concurrent at once, max_per_run
 * in all); its sub-agents are made from the run's finished context (bindContext): the lead's
 * model, tools and sections. The agents themselves reach the lead through the skills provider's
 * `<subagent_system>` section and search_skills, not through this tool's description.
 */
export function createSubagentsProvider(runtime: AgentRuntime): RequestProvider {
  const { config } = runtime;
  return {
    name: "subagents",
    async contribute(request) {
      if (!config.subagents.enabled) return {};
      const { agents } = await runtime.snapshotFor(request);
      if (!agents.agents.some((agent) => agent.enabled)) return {};
      let lead: RequestContext | undefined;
      const task = createTaskTool({
        agents: () => agents,
        parent: () => {
          if (!lead) throw new ThinktankError("INTERNAL", "the task tool ran before its run's context was ready");
          return lead;
        },
        limits: new DelegationLimits({ maxConcurrent: config.subagents.max_concurrent, maxPerRun: config.subagents.max_per_run }),
        depth: 1,
        config,
        readPrompt: readAgentPrompt,
        createModel: (name) => createChatModel(config, name),
      });
      return {
        tools: [task],
        bindContext: (context) => {
          lead = context;
        },
      };
    },
  };
}
