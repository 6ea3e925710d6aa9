/** A compiled matcher: whether it matches any of a target's names, or why it can never match. */
export interface HookMatcher {
  matches(names: readonly string[]): boolean;
  /** Set when the matcher is refused (an invalid or unsafe regular expression): it matches nothing. */
  readonly problem?: string;
}

/** Longest matcher compiled as a regular expression. */
const maxPatternLength = 256;
/** Most repetitions a matcher may hold. */
const maxRepetitions = 3;
/** Names and `|` only: exact names, as Claude Code reads them. */
const plainNames = /^[A-Za-z0-9_|]+$/;

const everything: HookMatcher = { matches: () => true };

/**
 * A matcher as Claude Code reads it, case-sensitive: absent, empty or `*` matches everything;
 * names and `|` only (`Bash`, `Edit|Write`, `mcp__memory__create_entities`) match exactly one of
 * the names; anything else is a regular expression tested against each name (`Notebook.*`,
 * `mcp__github__.*`). A target has several names (the agent's `str_replace` is `Edit`,
 * `MultiEdit`, `NotebookEdit` and `str_replace`); one match is enough.
 *
 * A plugin's regular expression runs in the agent's process, so one that could backtrack for
 * ever is refused: longer than 256 characters, a quantified group (`(a+)+`, `(x|y)*`), or more
 * than three repetitions (`.*a.*b.*c.*`); such a matcher matches nothing and says why.
 */
export function compileHookMatcher(matcher: string | undefined): HookMatcher {
  if (matcher === undefined || matcher === "" || matcher === "*") return everything;
  if (plainNames.test(matcher)) {
    const alternatives = new Set(matcher.split("|").filter((name) => name !== ""));
    return { matches: (names) => names.some((name) => alternatives.has(name)) };
  }
  const refused = unsafePattern(matcher);
  if (refused) return { matches: () => false, problem: refused };
  let pattern: RegExp;
  try {
    pattern = new RegExp(matcher);
  } catch (error) {
    return { matches: () => false, problem: `matcher ${JSON.stringify(matcher)} is not a valid regular expression (${(error as Error).message}); it matches nothing` };
  }
  return { matches: (names) => names.some((name) => pattern.test(name)) };
}

/** Why a pattern may not run here, or undefined. */
function unsafePattern(matcher: string): string | undefined {
  if (matcher.length > maxPatternLength) return `matcher is longer than ${maxPatternLength} characters; it matches nothing`;
  const { groupRepeated, repetitions } = repetitionsOf(matcher);
  if (groupRepeated) return `matcher ${JSON.stringify(matcher)} repeats a group (such as (a+)+), which can take exponential time; it matches nothing`;
  if (repetitions > maxRepetitions) return `matcher ${JSON.stringify(matcher)} has more than ${maxRepetitions} repetitions (*, +, {n,m}), which can take a long time; it matches nothing`;
  return undefined;
}

/** The repetitions outside character classes, and whether one follows a group. */
function repetitionsOf(pattern: string): { groupRepeated: boolean; repetitions: number } {
  let inClass = false;
  let afterGroup = false;
  let repetitions = 0;
  for (let index = 0; index < pattern.length; index++) {
    const character = pattern[index];
    const closesGroup = !inClass && character === ")";
    if (character === "\\") index++;
    else if (inClass) inClass = character !== "]";
    else if (character === "[") inClass = true;
    else if (character === "*" || character === "+" || character === "{") {
      repetitions++;
      if (afterGroup) return { groupRepeated: true, repetitions };
    }
    afterGroup = closesGroup;
  }
  return { groupRepeated: false, repetitions };
}
