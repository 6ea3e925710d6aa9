/**
 * The system-prompt section of code mode: when to write a program instead of calling tools one
 * by one, the discovery pattern, and how wrappers are imported. Fixed text (no server or tool
 * names), so it costs the same at any number of tools.
 */
export function codeExecutionPrompt(options: { readonly maxStdoutBytes: number }): string {
  return `<code_execution>
Tools of the connected servers are not listed here: you use them from code.
1. Discover: list_servers, then search_tools("what you need"), then search_tools(..., detail="full") for the tools you will call.
2. Act: execute_code with a program that imports the wrappers, calls the tools and prints a short result.
Write one program rather than calling tools step by step whenever you chain calls, loop, pass data from one tool to another, or filter large results: intermediate data stays in the sandbox, only what you print comes back (stdout is cut after ${options.maxStdoutBytes} bytes).
TypeScript: import { searchRepositories } from "servers/github"; const repos = await searchRepositories({ query: "mcp" });
Python: from servers.github import search_repositories
A wrapper returns the tool's structured result (or its parsed text); a failure throws MCPToolError with code and message. Print counts, a few fields or a small JSON slice, not whole results. Files in /mnt/user-data/workspace persist for later programs in this thread.
</code_execution>`;
}
