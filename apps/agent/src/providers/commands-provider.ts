import type { RequestProvider } from "../request/request-context.js";
import type { AgentRuntime } from "../runtime/agent-runtime.js";

/**
 * Slash commands in the request: the `<slash_commands>` section (plugin commands and
 * user-invocable skills, with argument hints; order 20) and their expansion before the model sees
 * a message that starts with one.
 */
export function createCommandsProvider(runtime: AgentRuntime): RequestProvider {
  return {
    name: "commands",
    async contribute(request) {
      const { commands } = await runtime.snapshotFor(request);
      return { sections: [{ id: "slash_commands", text: commands.promptSection(), order: 20 }], resolveCommand: (message) => commands.resolve(message) };
    },
  };
}
