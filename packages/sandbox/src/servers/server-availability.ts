import type { SandboxBackend } from "@thinktank/core";

/** Whether a backend runs long-lived servers (stdio MCP servers marked `sandbox: true`), and why not. */
export type ServerAvailability = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * Only bubblewrap runs a server in the sandbox: Deno runs no host program (node, npx, python, uvx),
 * and local isolates nothing. Such a server is never run on the host instead. The reasons name no
 * host path (GET answers show them).
 */
export function serverAvailability(backend: Exclude<SandboxBackend, "auto">): ServerAvailability {
  switch (backend) {
    case "bubblewrap":
      return { ok: true };
    case "deno":
      return {
        ok: false,
        reason:
          "it is to run in the sandbox, and the sandbox backend here is deno, which cannot run host programs (node, npx, python, uvx): stdio MCP servers run sandboxed only on the bubblewrap backend (install bubblewrap and keep sandbox.backend auto or bubblewrap); it never runs on the host instead",
      };
    case "local":
      return { ok: false, reason: "it is to run in the sandbox, and sandbox.backend is local, which isolates nothing: it never runs on the host instead" };
  }
}
