import { buildCodeApiIndex } from "@thinktank/codegen";

/**
 * The servers whose code API a program names, so they can be connected (and their wrappers
 * generated) before it is built: `servers/<dir>` in TypeScript or JavaScript (also under
 * /mnt/code-api/), `servers.<package>` and `from servers import <package>` in Python. The match is
 * textual and loose on purpose: a name in a comment only connects that server early, while a
 * missed one would fail the build. Folder and package names are the generator's.
 */
export function serversNamedIn(code: string, serverNames: readonly string[]): string[] {
  if (serverNames.length === 0 || !code.includes("servers")) return [];
  const words = new Set<string>();
  for (const match of code.matchAll(/\bservers[/.]([\w-]+)/g)) words.add((match[1] as string).toLowerCase());
  for (const match of code.matchAll(/\bfrom\s+servers\s+import\s+\(?([\w\s,]+)/g)) {
    for (const word of (match[1] as string).split(/[\s,]+/)) if (word !== "") words.add(word.toLowerCase());
  }
  if (words.size === 0) return [];
  const index = buildCodeApiIndex(serverNames.map((server) => ({ server, tools: [] })));
  return index.servers.filter((entry) => words.has(entry.dir.toLowerCase()) || words.has(entry.pythonPackage.toLowerCase())).map((entry) => entry.server);
}
