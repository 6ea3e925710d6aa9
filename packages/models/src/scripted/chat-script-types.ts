/**
 * The scripted chat model's script: an ordered list of rules. On each model call the first
 * rule whose every condition holds answers; `fallback` answers when none does. A script is
 * data only (JSON or YAML), so a test or a demo reads exactly what the model will do.
 */
export interface ChatScript {
  /** A label for error messages and logs. */
  readonly name?: string;
  readonly rules: readonly ChatScriptRule[];
  /** The answer when no rule matches. @default a reply that says no rule matched */
  readonly fallback?: ChatScriptAnswer;
}

export interface ChatScriptRule extends ChatScriptAnswer {
  /** An optional identifier, shown in the answer's `response_metadata.scripted_rule`. */
  readonly id?: string;
  /** Every condition given must hold; an empty or missing `when` always matches. */
  readonly when?: ChatScriptConditions;
}

export interface ChatScriptConditions {
  /** A regular expression (JavaScript syntax, case-insensitive) the last human message, as the model gets it, must match. Its groups are `{{match.N}}`. */
  readonly last_human?: string;
  /**
   * A regular expression (as `last_human`) that what the user typed in the last human message must
   * match: a slash command as typed, not its expansion, and without the skills block the agent
   * appends. Its groups are `{{match.N}}` (over `last_human`'s). Demos use it, so text inside an
   * expanded command or a skill is never taken for an instruction.
   */
  readonly user_typed?: string;
  /** True: the last human message is a slash command's expansion (the agent ran a command); false: it is not. */
  readonly slash_command?: boolean;
  /** Text the last tool result must contain (case-sensitive). */
  readonly last_tool_result?: string;
  /** The name of the tool that produced the last tool result. */
  readonly last_tool_name?: string;
  /** Text the system prompt must contain (case-sensitive). */
  readonly system?: string;
  /** The model call's index within the current turn: 0 for the first call after the last human message. */
  readonly step?: number;
  /** A tool the model was given with bindTools. */
  readonly tool_available?: string;
  /** True: a tool result must follow the last human message; false: none may. */
  readonly after_tool?: boolean;
}

export interface ChatScriptAnswer {
  /** The reply text; templates: see `renderTemplate`. */
  readonly reply?: string;
  /** Tool calls to make; string values in `args` are templates too. */
  readonly tool_calls?: readonly ChatScriptToolCall[];
}

export interface ChatScriptToolCall {
  readonly name: string;
  readonly args?: Readonly<Record<string, unknown>>;
}
