import type { RequestProvider } from "../request/request-context.js";
import type { AgentRuntime } from "../runtime/agent-runtime.js";

/**
 * Slash commands in the request: the `<slash_commands>` section (order 20; full listing: plugin
 * commands and user-invocable skills with argument hints; compact: their counts and how to find
 * them, see SkillListing) and their expansion, for every command whether listed or not, before
 * the model sees a message that starts with one.
 */
export function createCommandsProvider(runtime: AgentRuntime): RequestProvider {
  return {
    name: "commands",
    async contribute(request) {
      const { commands, listing } = await runtime.snapshotFor(request);
      return { sections: [{ id: "slash_commands", text: listing.commandsSection, order: 20 }], resolveCommand: (message) => commands.resolve(message) };
    },
  };
}
