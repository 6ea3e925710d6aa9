// Public API of @thinktank/subagents: what other packages and apps use, and what README.md documents.

export type { AgentDefinition, AgentProblem, AgentSource } from "./agent-types.js";
