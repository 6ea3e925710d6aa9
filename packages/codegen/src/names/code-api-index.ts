import { assignUniqueNames } from "./assign-unique-names.js";
import { identifierCase } from "./identifier-case.js";
import { pythonReservedWords, typeScriptReservedWords } from "./reserved-words.js";

/** Where one tool's wrappers live and what they are called. */
export interface CodeApiToolEntry {
  /** The server name as configured (`everything`, `sales:slack`). */
  readonly server: string;
  /** The tool name exactly as the server lists it. */
  readonly tool: string;
  /** The server's TypeScript folder under `servers/` (`sales-slack`). */
  readonly dir: string;
  /** The TypeScript file name in that folder (`searchRepositories.ts`). */
  readonly file: string;
  /** The exported TypeScript function (`searchRepositories`). */
  readonly functionName: string;
  /** The TypeScript wrapper as the sandbox sees it (`/mnt/code-api/servers/github/searchRepositories.ts`). */
  readonly wrapperPath: string;
  /** The server's Python package under `python/servers/` (`sales_slack`). */
  readonly pythonPackage: string;
  /** The importable Python module (`servers.github.search_repositories`). */
  readonly pythonModule: string;
  /** The Python function (`search_repositories`). */
  readonly pythonFunctionName: string;
  /** The Python wrapper as the sandbox sees it (`/mnt/code-api/python/servers/github/search_repositories.py`). */
  readonly pythonWrapperPath: string;
}

/** One server's folders and its tools' entries, tools in the order the server lists them. */
export interface CodeApiServerEntry {
  readonly server: string;
  readonly dir: string;
  readonly pythonPackage: string;
  readonly tools: readonly CodeApiToolEntry[];
}

/** The mapping `{ server, tool } → names and paths` for a whole set of servers. */
export interface CodeApiIndex {
  readonly mountPath: string;
  readonly servers: readonly CodeApiServerEntry[];
  /** The entry of one tool, or undefined when the server or tool is not in the set. */
  find(server: string, tool: string): CodeApiToolEntry | undefined;
}

export interface CodeApiIndexOptions {
  /**
   * Where the code API folder is mounted in the sandbox; wrapper paths start with it.
   * @default "/mnt/code-api"
   */
  readonly mountPath?: string;
  /**
   * Another code API the same programs see (the shared one, beside a user's own servers): its
   * folder and package names are taken, so this set's never collide with them (`notes` there
   * makes this set's `~notes` `notes-2`). @default none
   */
  readonly alongside?: Pick<CodeApiIndex, "servers">;
}

/** The default sandbox mount point of the code API (config.code_execution.code_api_dir on the host). */
export const defaultCodeApiMountPath = "/mnt/code-api";

/**
 * Names every server folder, wrapper file and function for a set of servers. Pure and
 * deterministic: the same servers give the same names whatever their order, so the search
 * engine can compute `wrapper_path` from the catalog without generating anything.
 */
export function buildCodeApiIndex(
  servers: readonly { readonly server: string; readonly tools: readonly { readonly name: string }[] }[],
  options: CodeApiIndexOptions = {},
): CodeApiIndex {
  const mountPath = (options.mountPath ?? defaultCodeApiMountPath).replace(/\/+$/, "");
  const serverNames = servers.map((s) => s.server);
  const dirs = assignUniqueNames(serverNames, {
    sanitize: (raw) => identifierCase.folder(raw, "server"),
    suffix: (name, n) => `${name}-${n}`,
    caseInsensitive: true,
    ...(options.alongside ? { taken: options.alongside.servers.map((entry) => entry.dir) } : {}),
  });
  const packages = assignUniqueNames(serverNames, {
    sanitize: (raw) => identifierCase.pythonPackage(raw, "server"),
    reserved: pythonReservedWords,
    suffix: (name, n) => `${name}_${n}`,
    caseInsensitive: true,
    ...(options.alongside ? { taken: options.alongside.servers.map((entry) => entry.pythonPackage) } : {}),
  });

  const entries: CodeApiServerEntry[] = servers.map(({ server, tools }) => {
    const toolNames = tools.map((t) => t.name);
    const functions = assignUniqueNames(toolNames, {
      sanitize: (raw) => identifierCase.camel(raw, "tool"),
      reserved: typeScriptReservedWords,
      suffix: (name, n) => `${name}${n}`,
      caseInsensitive: true,
    });
    const pythonFunctions = assignUniqueNames(toolNames, {
      sanitize: (raw) => identifierCase.snake(raw, "tool"),
      reserved: pythonReservedWords,
      suffix: (name, n) => `${name}_${n}`,
      caseInsensitive: true,
    });
    const dir = dirs.get(server) as string;
    const pythonPackage = packages.get(server) as string;
    const seen = new Set<string>();
    const toolEntries: CodeApiToolEntry[] = [];
    for (const name of toolNames) {
      // A server that lists one name twice gets one wrapper: the bridge calls tools by name.
      if (seen.has(name)) continue;
      seen.add(name);
      const functionName = functions.get(name) as string;
      const pythonFunctionName = pythonFunctions.get(name) as string;
      toolEntries.push({
        server,
        tool: name,
        dir,
        file: `${functionName}.ts`,
        functionName,
        wrapperPath: `${mountPath}/servers/${dir}/${functionName}.ts`,
        pythonPackage,
        pythonModule: `servers.${pythonPackage}.${pythonFunctionName}`,
        pythonFunctionName,
        pythonWrapperPath: `${mountPath}/python/servers/${pythonPackage}/${pythonFunctionName}.py`,
      });
    }
    return { server, dir, pythonPackage, tools: toolEntries };
  });

  const byKey = new Map<string, CodeApiToolEntry>();
  for (const entry of entries) for (const tool of entry.tools) byKey.set(JSON.stringify([entry.server, tool.tool]), tool);
  return {
    mountPath,
    servers: entries,
    find: (server, tool) => byKey.get(JSON.stringify([server, tool])),
  };
}
