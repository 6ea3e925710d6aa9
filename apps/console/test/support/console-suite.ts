import type { Browser } from "playwright-core";
import { startConsoleBackend, type ConsoleBackend, type ConsoleBackendOptions } from "./console-backend.js";
import { launchBrowser } from "./console-browser.js";

/**
 * What a suite run on a backend it shares with other suites (console-pages.test.ts, console-admin.test.ts) gets: the
 * backend and the browser, started once by the file's beforeAll (so read them in hooks and tests,
 * not while the suite is defined).
 */
export interface SharedConsole {
  readonly backend: ConsoleBackend;
  readonly browser: Browser;
}

/** The shared backend and browser, once the file's beforeAll has started them. */
export type Shared = () => SharedConsole;

/** What one suite needs of the shared backend, merged with the other suites' (mergeBackendParts). */
export interface BackendPart {
  /** Rules of the scripted model's script (YAML list items, indented by two spaces): the file's script lists every suite's, in order, and the first that matches answers. */
  readonly rules?: string;
  /** More config.yaml lines (top-level keys; a key only one suite sets). */
  readonly config?: readonly string[];
  /** Sections of extensions_config.json: entries of each section are merged. */
  readonly extensions?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** More files in the project folder. */
  readonly files?: Readonly<Record<string, string>>;
  /** From the corpus (ConsoleBackendOptions.corpus): the skills copied in. @default none */
  readonly corpus?: { readonly skills?: boolean };
}

/** One backend's options for suites that share it: their rules in order, their config, extensions and files together. */
export function mergeBackendParts(name: string, parts: readonly BackendPart[], fallback: string): ConsoleBackendOptions {
  const extensions: Record<string, Record<string, unknown>> = { mcpServers: {}, skills: {}, plugins: {}, tools: {} };
  for (const part of parts) {
    for (const [section, entries] of Object.entries(part.extensions ?? {})) {
      for (const entry of Object.keys(entries)) if (extensions[section] && entry in extensions[section]) throw new Error(`two suites define ${section}.${entry}`);
      extensions[section] = { ...extensions[section], ...entries };
    }
  }
  const configKeys = parts.flatMap((part) => (part.config ?? []).filter((line) => /^\S/.test(line)));
  const repeated = configKeys.find((key, index) => configKeys.indexOf(key) !== index);
  if (repeated) throw new Error(`two suites set the config key ${repeated}`);
  return {
    script: [`name: ${name}`, "rules:", ...parts.map((part) => part.rules?.replace(/\n+$/, "") ?? "").filter(Boolean), "fallback:", `  reply: ${JSON.stringify(fallback)}`, ""].join("\n"),
    config: parts.flatMap((part) => part.config ?? []),
    extensions,
    files: Object.assign({}, ...parts.map((part) => part.files ?? {})) as Record<string, string>,
    ...(parts.some((part) => part.corpus?.skills) ? { corpus: { skills: true } } : {}),
  };
}

/** The backend and the browser, started side by side; when one fails the other is closed. */
export async function startSharedConsole(options: ConsoleBackendOptions): Promise<SharedConsole> {
  const [backend, browser] = await Promise.allSettled([startConsoleBackend(options), launchBrowser()]);
  if (backend.status === "fulfilled" && browser.status === "fulfilled") return { backend: backend.value, browser: browser.value };
  await Promise.allSettled([backend.status === "fulfilled" && backend.value.close(), browser.status === "fulfilled" && browser.value.close()]);
  throw backend.status === "rejected" ? backend.reason : (browser as PromiseRejectedResult).reason;
}
