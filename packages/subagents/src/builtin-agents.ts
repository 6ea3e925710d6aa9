import type { AgentDefinition } from "./agent-types.js";

/** The system prompt of `builtin:general-purpose` (its "body"): the delegated prompt is its task. */
export const generalPurposePrompt = [
  "You are a sub-agent: the lead agent handed you one self-contained task, and your final message is the only thing it will see.",
  "",
  "Work on the task with the tools you have: look things up, read and search files, run commands, and check what you find before you rely on it. Keep going until the task is done or you are sure it cannot be done.",
  "",
  "Your final message is your answer to the lead. Make it complete on its own: the result, the facts and file paths it rests on, and anything you could not finish and why. Leave out your intermediate steps unless they matter to the result. Do not ask the lead questions; if something is ambiguous, make the most reasonable choice and say which.",
].join("\n");

/**
 * The built-in agents: `general-purpose`, a delegate with the lead's tools (no `tools` list) and
 * model (no `model`), for research and multi-step work the lead wants done in a context of its own.
 */
export const builtinAgents: readonly AgentDefinition[] = Object.freeze([
  Object.freeze({
    identity: "builtin:general-purpose",
    name: "general-purpose",
    source: "builtin" as const,
    description:
      "A delegate with your own tools for a self-contained piece of work: open-ended research, searching many files or sources, or a multi-step task whose intermediate results you do not need to see. It starts with an empty context and returns only its final answer, so give it the whole task and what it needs to know in the prompt.",
    enabled: true,
    defaultEnabled: true,
    frontmatter: Object.freeze({}),
  }),
]);

/** The built-in prompt of a built-in agent, by identity. */
export function builtinAgentPrompt(identity: string): string | undefined {
  return identity === "builtin:general-purpose" ? generalPurposePrompt : undefined;
}
