// The slash commands the caller can type, as the agent resolves them (packages/plugins'
// SlashCommands): their enabled, user-invocable public and custom skills as `/<name>` (GET
// /api/skills, the caller's view), then each enabled plugin's commands and user-invocable skills as
// `/<plugin>:<name>` (GET /api/plugins/:name/commands).
import { api } from "../../api/api-client.js";

export interface SlashCommand {
  readonly invocation: string;
  readonly description: string;
  readonly argumentHint?: string;
}

interface SkillSummary {
  readonly name: string;
  readonly category: string;
  readonly enabled: boolean;
  readonly user_invocable?: boolean;
  readonly description: string;
  readonly argument_hint?: string | null;
}

/** As SlashCommands types a skill's name: itself when it is typeable, else in kebab case. */
function typeableName(name: string): string {
  if (/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) return name;
  const kebab = name.toLowerCase().replace(/[^a-z0-9._-]+/g, "-").replace(/^[^a-z0-9]+|-+$/g, "");
  return kebab === "" ? name : kebab;
}

export async function loadSlashCommands(signal?: AbortSignal): Promise<SlashCommand[]> {
  const [skills, plugins] = await Promise.all([
    api<{ skills: SkillSummary[] }>("/api/skills", { signal }),
    api<{ plugins: { name: string; enabled: boolean; state: string }[] }>("/api/plugins", { signal }),
  ]);
  const commands: SlashCommand[] = skills.skills
    .filter((skill) => (skill.category === "public" || skill.category === "custom") && skill.enabled && skill.user_invocable !== false)
    .map((skill) => ({ invocation: `/${typeableName(skill.name)}`, description: skill.description, ...(skill.argument_hint ? { argumentHint: skill.argument_hint } : {}) }));
  const enabled = plugins.plugins.filter((plugin) => plugin.enabled && plugin.state === "enabled");
  const lists = await Promise.all(
    enabled.map((plugin) =>
      api<{ commands: { invocation?: unknown; description?: unknown; argumentHint?: unknown }[] }>(`/api/plugins/${encodeURIComponent(plugin.name)}/commands`, { signal }).catch(() => ({ commands: [] })),
    ),
  );
  for (const list of lists) {
    for (const entry of list.commands) {
      if (typeof entry.invocation !== "string") continue;
      commands.push({ invocation: entry.invocation, description: typeof entry.description === "string" ? entry.description : "", ...(typeof entry.argumentHint === "string" ? { argumentHint: entry.argumentHint } : {}) });
    }
  }
  return commands;
}

/** The commands a draft's first word completes to (the draft starts with `/` and has no space yet). */
export function completionsFor(draft: string, commands: readonly SlashCommand[], limit = 8): SlashCommand[] {
  if (!/^\/\S*$/.test(draft)) return [];
  const typed = draft.toLowerCase();
  const starts = commands.filter((command) => command.invocation.toLowerCase().startsWith(typed));
  const contains = commands.filter((command) => !starts.includes(command) && command.invocation.toLowerCase().includes(typed.slice(1)));
  return [...starts, ...contains].slice(0, limit);
}
