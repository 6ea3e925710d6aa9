import path from "node:path";
import { userSkillsFolder } from "@thinktank/skills";

/** The project's installed agents: `<agents.path>/custom` (identities `custom:<name>`). */
export function customAgentsFolder(agentsRoot: string): string {
  return path.join(agentsRoot, "custom");
}

/**
 * One user's own agents: `<agents.path>/users/<folder>` (identities `user:<name>`), the folder
 * derived from the id alone exactly as a user's skills folder is (skills' userSkillsFolder).
 */
export function userAgentsFolder(agentsRoot: string, userId: string): string {
  return userSkillsFolder(agentsRoot, userId);
}
