/**
 * Where a plugin's skills folder appears under the container path: "plugins/<plugin>" for its
 * `skills/` folder (so /mnt/skills/plugins/<plugin>/<skill>/SKILL.md), "plugins/<plugin>/<path>"
 * for another folder a manifest names, so two folders never share virtual paths.
 */
export function skillContainerPrefix(plugin: string, root: string): string {
  return root === "skills" ? `plugins/${plugin}` : `plugins/${plugin}/${root}`;
}
