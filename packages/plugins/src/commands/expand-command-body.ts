export interface BodyExpansion {
  readonly text: string;
  /** Whether `$ARGUMENTS` appeared or a `$N` was filled. */
  readonly usedPlaceholders: boolean;
}

// One pass over the body, so text that an argument brings in is never expanded again.
// $1..$9 count only standing alone: not $10, $1M, $1.2M or $1,000 (a letter, digit or '_' after
// the digit, or '.'/',' and a digit, means an amount or another word).
const placeholder = /\$ARGUMENTS\b|\$\{ARGUMENTS\}|\$\{CLAUDE_PLUGIN_ROOT\}|\$([1-9])(?![0-9A-Za-z_])(?![.,][0-9])/g;

/**
 * Fills a command or skill body: `$ARGUMENTS` becomes the raw argument string, `$1`..`$9` the
 * positional arguments, `${CLAUDE_PLUGIN_ROOT}` the plugin's folder as the model sees it (when
 * given). A placeholder without a value stays as written. When arguments were given but no
 * placeholder took any (no `$ARGUMENTS`, no filled `$N`), they are appended as `ARGUMENTS: <raw>`
 * so they are never lost (Claude Code does the same).
 */
export function expandCommandBody(body: string, raw: string, positional: readonly string[], pluginRoot?: string): BodyExpansion {
  let usedPlaceholders = false;
  let text = body.replace(placeholder, (whole: string, digit: string | undefined) => {
    if (digit !== undefined) {
      const value = positional[Number(digit) - 1];
      if (value === undefined) return whole;
      usedPlaceholders = true;
      return value;
    }
    if (whole === "${CLAUDE_PLUGIN_ROOT}") return pluginRoot ?? whole;
    usedPlaceholders = true;
    return raw;
  });
  if (!usedPlaceholders && raw !== "") text = `${text.replace(/\s+$/, "")}\n\nARGUMENTS: ${raw}`;
  return { text, usedPlaceholders };
}
