import type { ChatScriptRule } from "./chat-script-types.js";
import type { ConversationView } from "./conversation-view.js";

/** The rule that answers and the groups its `user_typed` (else `last_human`) regex captured (for `{{match.N}}`). */
export interface RuleMatch {
  readonly rule: ChatScriptRule;
  readonly index: number;
  readonly groups: readonly string[];
}

/** The first rule whose every condition holds, or undefined. */
export function matchRule(rules: readonly ChatScriptRule[], view: ConversationView, toolNames: ReadonlySet<string>): RuleMatch | undefined {
  for (const [index, rule] of rules.entries()) {
    const groups = conditionsHold(rule, view, toolNames);
    if (groups) return { rule, index, groups };
  }
  return undefined;
}

function conditionsHold(rule: ChatScriptRule, view: ConversationView, toolNames: ReadonlySet<string>): string[] | undefined {
  const when = rule.when ?? {};
  const lastTool = view.toolResults.at(-1);
  if (when.step !== undefined && when.step !== view.step) return undefined;
  if (when.system !== undefined && !view.system.includes(when.system)) return undefined;
  if (when.tool_available !== undefined && !toolNames.has(when.tool_available)) return undefined;
  if (when.slash_command !== undefined && when.slash_command !== view.slashCommand) return undefined;
  if (when.after_tool !== undefined && when.after_tool !== (lastTool !== undefined)) return undefined;
  if (when.last_tool_name !== undefined && lastTool?.name !== when.last_tool_name) return undefined;
  if (when.last_tool_result !== undefined && !(lastTool?.text.includes(when.last_tool_result) ?? false)) return undefined;
  const human = matchText(when.last_human, view.lastHuman);
  const typed = matchText(when.user_typed, view.userTyped);
  if (human === undefined || typed === undefined) return undefined;
  return when.user_typed !== undefined ? typed : human;
}

/** The regex's groups over `text`; [] without a regex; undefined when it does not match. */
function matchText(pattern: string | undefined, text: string | undefined): string[] | undefined {
  if (pattern === undefined) return [];
  if (text === undefined) return undefined;
  const match = new RegExp(pattern, "i").exec(text);
  return match ? match.map((group) => group ?? "") : undefined;
}
