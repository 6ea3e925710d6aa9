import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import type { SkillListing, SkillSearchKind } from "@thinktank/skills";
import { withCodedErrors } from "../tools/tool-failure.js";

interface SearchSkillsInput {
  readonly query: string;
  readonly limit?: number;
  readonly kind?: SkillSearchKind;
}

/**
 * `search_skills(query, limit, kind)`: the compact listing's way to every skill the model may use
 * and every slash command, none of which the system prompt names. Answers JSON: skills with their
 * identity, one-line description and location (the SKILL.md to read), commands with their
 * invocation (marked `kind: "command"`, or `"skill"` for a skill the user runs), sub-agents (when
 * the listing has any) with the subagent_type `task` takes. An empty query or a bad limit is a
 * VALIDATION_FAILED tool error.
 */
export function createSearchSkillsTool(listing: SkillListing): StructuredToolInterface {
  const agents = listing.agentsSection !== "";
  return tool(
    ({ query, limit, kind }: SearchSkillsInput) =>
      withCodedErrors(async () => {
        const found = await listing.searchBlended(query, { limit: limit ?? 5, kind: kind ?? "all" });
        const skills = found.skills?.map(({ identity, description, location }) => ({ identity, description, location }));
        const commands = found.commands?.map((hit) => ({
          kind: hit.kind,
          invocation: hit.invocation,
          description: hit.description,
          ...(hit.argumentHint ? { argument_hint: hit.argumentHint } : {}),
          ...(hit.identity ? { identity: hit.identity } : {}),
        }));
        const agentHits = found.agents?.map(({ subagentType, identity, description }) => ({ subagent_type: subagentType, identity, description }));
        const none = (skills?.length ?? 0) + (commands?.length ?? 0) + (agentHits?.length ?? 0) === 0;
        return JSON.stringify({
          ...(skills ? { skills } : {}),
          ...(commands ? { commands } : {}),
          ...(agentHits ? { agents: agentHits } : {}),
          ...(none ? { note: "nothing matched: try other words for the task (what to produce, a file type, a tool or a plugin's name)" } : {}),
        });
      }),
    {
      name: "search_skills",
      description: agents
        ? "Search every installed skill (and the user's slash commands, and the sub-agents) by the task, a name or an identity. Returns skills with identity, one-line description and location: read the SKILL.md at a location with read_file before using that skill. Commands come with their invocation; the user runs them. Sub-agents come with the subagent_type to pass to task."
        : "Search every installed skill (and the user's slash commands) by the task, a skill's name or its identity. Returns skills with identity, one-line description and location: read the SKILL.md at a location with read_file before using that skill. Commands come with their invocation; the user runs them.",
      schema: {
        type: "object",
        properties: {
          query: { type: "string", description: "What the task is, in a few words, or a skill's name or identity." },
          limit: { type: "integer", minimum: 1, maximum: 50, description: "Results per kind. Default 5." },
          kind: agents
            ? { type: "string", enum: ["skills", "commands", "agents", "all"], description: "skills, commands (slash commands, skills the user can run included), agents (sub-agents for task), or all (the default)." }
            : { type: "string", enum: ["skills", "commands", "all"], description: "skills, commands (slash commands, skills the user can run included), or all (the default)." },
        },
        required: ["query"],
        additionalProperties: false,
      },
    },
  );
}
