/**
 * Plugin names become folder names (plugins/installed/<name>) and namespaces (`<plugin>:<server>`,
 * `/<plugin>:<command>`), so they may not hold `/`, `:`, spaces or a leading dot. Claude Code
 * prefers kebab-case; any of [A-Za-z0-9._-] is accepted here, up to 64 characters.
 */
export const pluginNamePattern = "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$";

const pluginNameRegex = new RegExp(pluginNamePattern);

export function isValidPluginName(name: string): boolean {
  return pluginNameRegex.test(name);
}

/** Why a name is refused, for an error message. */
export function pluginNameRule(): string {
  return "1-64 characters of letters, digits, '.', '_' and '-', starting with a letter or digit (no '/', ':' or spaces)";
}
