import type { ChatScript } from "./chat-script-types.js";

const realModelHint =
  "For real answers, set a provider key (ANTHROPIC_API_KEY for Anthropic, OPENAI_API_KEY for OpenAI), " +
  "add the provider under models.providers in config.yaml and name it in models.default.";

/**
 * The script used when config names the scripted provider without a `script` file: a short demo
 * that exercises the agent's tools and says plainly that it is not a language model.
 */
export const defaultChatScript: ChatScript = {
  name: "thinktank demo",
  rules: [
    {
      id: "greeting",
      when: { last_human: "^\\s*(hi|hello|hey)\\b", step: 0 },
      reply:
        `Hello! I am Thinktank's scripted demo model: I follow a fixed script, not a language model. ${realModelHint} ` +
        "Things I can do: 'list /mnt/skills', 'read <path>', 'ask me something'.",
    },
    {
      id: "read",
      when: { last_human: "\\b(?:read|open|cat)\\s+(\\S+)", step: 0, tool_available: "read_file" },
      tool_calls: [{ name: "read_file", args: { path: "{{match.1}}" } }],
    },
    {
      id: "list",
      when: { last_human: "\\b(?:list|ls)\\s+(\\S+)", step: 0, tool_available: "ls" },
      tool_calls: [{ name: "ls", args: { path: "{{match.1}}" } }],
    },
    {
      id: "ask",
      when: { last_human: "\\bask me\\b", step: 0, tool_available: "request_human_input" },
      tool_calls: [{ name: "request_human_input", args: { question: "What would you like me to do next?" } }],
    },
    {
      id: "answered",
      when: { after_tool: true, last_tool_name: "request_human_input" },
      reply: "You answered: {{lastToolResult}}",
    },
    {
      id: "tool-result",
      when: { after_tool: true },
      reply: "Result of {{lastToolName}}:\n\n{{lastToolResult}}",
    },
  ],
  fallback: {
    reply: `This is Thinktank's scripted demo model; it only knows a few phrases ('hello', 'list <path>', 'read <path>', 'ask me'). ${realModelHint}`,
  },
};
