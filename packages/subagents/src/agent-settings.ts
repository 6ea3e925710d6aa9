import type { AgentProblem } from "./agent-types.js";
import type { AgentSettingsDocument } from "./agents-snapshot.js";

const settingsFile = "extensions_config.json";

/** `enabled` of an entry written `{ "enabled": bool }` (or a bare boolean), else undefined. */
function enabledOf(entry: unknown): boolean | undefined {
  if (typeof entry === "boolean") return entry;
  if (entry && typeof entry === "object" && typeof (entry as { enabled?: unknown }).enabled === "boolean") return (entry as { enabled: boolean }).enabled;
  return undefined;
}

function choicesOf(section: unknown, where: string, problems: AgentProblem[]): Map<string, boolean> {
  const choices = new Map<string, boolean>();
  if (section === undefined || section === null) return choices;
  if (typeof section !== "object" || Array.isArray(section)) {
    problems.push({ severity: "warning", file: settingsFile, message: `${where} must be an object keyed by agent identity; ignored` });
    return choices;
  }
  for (const [identity, entry] of Object.entries(section)) {
    const enabled = enabledOf(entry);
    if (enabled === undefined) problems.push({ severity: "warning", file: settingsFile, message: `${where}["${identity}"] must be { "enabled": true | false }; ignored` });
    else choices.set(identity, enabled);
  }
  return choices;
}

/** The administrator's defaults: `agents.<identity>.enabled`. */
export function agentDefaults(document: AgentSettingsDocument, problems: AgentProblem[]): Map<string, boolean> {
  return choicesOf(document.agents, "agents", problems);
}

/** `users.<id>.agents` as written (for telling whether it changed), or undefined. */
export function agentOverlayOf(document: AgentSettingsDocument, userId: string): unknown {
  const users = document.users;
  if (!users || typeof users !== "object" || !Object.hasOwn(users, userId)) return undefined;
  const user = users[userId];
  return user && typeof user === "object" ? (user as { agents?: unknown }).agents : undefined;
}

/** One user's choices: `users.<id>.agents.<identity>.enabled`. */
export function agentOverlay(overlay: unknown, userId: string, problems: AgentProblem[]): Map<string, boolean> {
  return choicesOf(overlay, `users["${userId}"].agents`, problems);
}
