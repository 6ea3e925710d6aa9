import fs from "node:fs";
import path from "node:path";
import type { SandboxBackend } from "@thinktank/core";
import type { Launcher } from "../launch/launch-plan.js";
import type { SandboxBackendInfo, SandboxCheck, SandboxLanguage, SandboxProblem, SandboxRequest, SandboxResult } from "../sandbox-types.js";

export interface CheckExecutorInput {
  readonly backend: SandboxBackend;
  readonly info: SandboxBackendInfo;
  readonly launcher: Launcher;
  readonly runtimeDir: string;
  /** Runs a request without touching the warm pool. */
  readonly probe: (request: SandboxRequest) => Promise<SandboxResult>;
  readonly details: Readonly<Record<string, string | number | boolean | undefined>>;
}

const probes: ReadonlyArray<{ language: SandboxLanguage; source: string }> = [
  { language: "shell", source: "echo ok" },
  { language: "javascript", source: 'console.log("ok")' },
  { language: "python", source: 'print("ok")' },
];

/**
 * The sandbox diagnostic: starts a real sandbox for each language in a scratch workspace and
 * reports what failed and how to fix it (`thinktank doctor`-style output).
 */
export async function checkExecutor(input: CheckExecutorInput): Promise<SandboxCheck> {
  const workspace = fs.mkdtempSync(path.join(input.runtimeDir, "check-"));
  const problems: SandboxProblem[] = [];
  const details: Record<string, string | number | boolean | undefined> = { ...input.details, ...(await input.launcher.describe()) };
  if (typeof details.bash === "string" && details.bash.startsWith("not found")) {
    problems.push({ problem: "bash was not found: descriptors the host process inherited would reach sandboxed programs", fix: "install bash (`apt-get install bash`)" });
  }
  try {
    for (const { language, source } of probes) {
      const result = await input.probe({ language, source, workspaceDir: workspace, timeoutMs: 60_000 });
      details[language] = result.error ? "fails" : result.stdout.trim() === "ok" ? `works (${Math.round(result.durationMs)} ms cold)` : "wrong output";
      if (result.error) {
        const [problem, fix] = result.error.message.split(" Fix: ");
        problems.push({ problem: `${language}: ${problem}`, fix: fix ?? "see the problem above" });
        if (language === "shell" && result.error.code === "SANDBOX_UNAVAILABLE") break;
      } else if (result.stdout.trim() !== "ok") {
        problems.push({ problem: `${language}: the probe printed ${JSON.stringify(result.stdout.slice(0, 200))} instead of "ok"`, fix: "check the interpreter installation" });
      }
    }
  } finally {
    fs.rmSync(workspace, { recursive: true, force: true });
  }
  const { isolated } = input.info;
  if (input.info.fallback) details.fallback = input.info.fallback;
  details.memory = input.info.memory.description;
  const works: Record<string, string> = {
    bubblewrap: `bubblewrap sandbox works (${details.bwrapVersion ?? "bwrap"}, runs as uid ${details.sandboxUid})`,
    deno: `deno sandbox works (${details.denoVersion ?? "deno"}; Python in Pyodide, shell simulated by just-bash)`,
    local: "local backend: programs run WITHOUT isolation, as the host user (sandbox.backend: local)",
  };
  const summary = problems.length > 0 ? `${input.backend} sandbox: ${problems[0]?.problem} Fix: ${problems[0]?.fix}` : (works[input.backend] ?? `${input.backend} sandbox works`);
  return { ok: problems.length === 0, backend: input.backend, isolated, summary, problems, details };
}
