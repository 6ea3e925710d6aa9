import type { ChatScript } from "./chat-script-types.js";

const realModelHint =
  "For real answers, set ANTHROPIC_API_KEY (Anthropic) or OPENAI_API_KEY (OpenAI) and restart: " +
  "with no models.default in config.yaml, the key picks the model.";

/**
 * The script used when config names the scripted provider without a `script` file: a short demo
 * that exercises the agent's tools and says plainly that it is not a language model. Its rules
 * look only at what the user typed (`user_typed`), never at a slash command's expansion or a skill
 * block the agent added: "open questions," inside a command is not an instruction to open a file.
 */
export const defaultChatScript: ChatScript = {
  name: "thinktank demo",
  rules: [
    {
      id: "greeting",
      when: { user_typed: "^\\s*(hi|hello|hey)\\b", step: 0 },
      reply:
        `Hello! I am Thinktank's scripted demo model: I follow a fixed script, not a language model. ${realModelHint} ` +
        "Things I can do: 'list /mnt/skills', 'read <path>', 'ask me something'.",
    },
    {
      id: "slash-command",
      when: { slash_command: true, step: 0 },
      reply:
        "You ran {{userTyped}}: the agent expanded it into the command's instructions, which a real model would now follow. " +
        `This scripted demo model cannot; it only knows a few phrases ('hello', 'list <path>', 'read <path>', 'ask me'). ${realModelHint}`,
    },
    {
      id: "read",
      when: { user_typed: "\\b(?:read|open|cat)\\s+(\\S+)", step: 0, tool_available: "read_file" },
      tool_calls: [{ name: "read_file", args: { path: "{{match.1}}" } }],
    },
    {
      id: "list",
      when: { user_typed: "\\b(?:list|ls)\\s+(\\S+)", step: 0, tool_available: "ls" },
      tool_calls: [{ name: "ls", args: { path: "{{match.1}}" } }],
    },
    {
      id: "ask",
      when: { user_typed: "\\bask me\\b", step: 0, tool_available: "request_human_input" },
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
