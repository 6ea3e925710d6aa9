import { escapeXml } from "@thinktank/skills";
import type { SlashCommandEntry } from "./slash-command-entry.js";

/**
 * The `<slash_commands>` prompt section; "" without commands. Commands get their invocation,
 * argument hint and first sentence; skills the model already sees in <available_skills> only
 * their invocation and hint (their description is there), so the section stays small.
 */
export function renderSlashCommands(entries: readonly SlashCommandEntry[]): string {
  if (entries.length === 0) return "";
  const described = slashCommandLines(entries);
  const skills = entries.filter(listedSkill).map(usage);
  return [
    "<slash_commands>",
    "The user can run these by starting a message with one (you then see the command's instructions instead). Suggest one when it fits what the user wants.",
    ...described,
    ...(skills.length > 0 ? [`Skills the user can run the same way (described in <available_skills>): ${skills.join(", ")}`] : []),
    "</slash_commands>",
  ].join("\n");
}

const usage = (entry: SlashCommandEntry): string => escapeXml(entry.argumentHint ? `${entry.invocation} ${entry.argumentHint}` : entry.invocation);
const listedSkill = (entry: SlashCommandEntry): boolean => entry.kind === "skill" && entry.skill !== undefined && !entry.skill.disableModelInvocation;

/** The described lines of the full `<slash_commands>` (every entry but skills the skill list shows): what commands cost in the full listing. */
export function slashCommandLines(entries: readonly SlashCommandEntry[]): string[] {
  return entries.filter((entry) => !listedSkill(entry)).map((entry) => `${usage(entry)}: ${escapeXml(firstSentence(entry.description))}`);
}

/** The first sentence (or line), cut at 150 characters. */
function firstSentence(text: string): string {
  const line = text.split("\n").find((candidate) => candidate.trim() !== "")?.trim() ?? "";
  const sentence = /^.*?[.!?](?=\s|$)/.exec(line)?.[0] ?? line;
  return sentence.length > 150 ? `${sentence.slice(0, 149)}…` : sentence;
}
