import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import {
  corpusDir,
  makeProjectFixture,
  startAgentProcess,
  startGatewayProcess,
  startOpenIdProvider,
  type AgentProcess,
  type GatewayProcess,
  type OpenIdProvider,
  type ProjectFixture,
} from "@thinktank/testing";
import { ensureConsoleBuilt } from "./console-build.js";

/**
 * The chat script the console's tests drive the agent with by default: "list <path>" calls `ls`,
 * "ask" asks the person a question (request_human_input), anything else is echoed.
 */
export const consoleScript = `
name: console tests
rules:
  - id: list
    when: { last_human: "^list (\\\\S+)", step: 0 }
    reply: "Listing it."
    tool_calls:
      - name: ls
        args: { path: "{{match.1}}" }
  - id: list-result
    when: { last_tool_name: ls }
    reply: "Listed: {{lastToolResult}}"
  - id: ask
    when: { last_human: "^ask", step: 0 }
    tool_calls:
      - name: request_human_input
        args: { question: "Which colour?" }
  - id: answered
    when: { last_tool_name: request_human_input }
    reply: "Your colour is {{lastToolResult}}."
fallback:
  reply: "Hello from the script. You said: {{lastHuman}}"
`;

export interface ConsoleBackendOptions {
  /** The scripted chat model's script (YAML). @default consoleScript */
  readonly script?: string;
  /** THINKTANK_API_KEY (the administrator's key): a given key, or true for a random one. Unset: a key-less loopback service (the local administrator). @default unset */
  readonly apiKey?: string | boolean;
  /**
   * `auth.jwt` naming a test OpenID provider started for the backend (startOpenIdProvider), with
   * `console.oidc.client_id` when `clientId` is given. @default no OpenID
   */
  readonly openId?: boolean | { readonly audience?: string; readonly clientId?: string };
  /**
   * From the corpus (guard the suite with needs("corpus")): `skills` copies the anthropic skills in
   * as custom skills, `plugins` installs these knowledge-work plugins through POST /api/plugins/install,
   * `marketplace` adds the knowledge-work marketplace (a local folder) as `knowledge-work`. @default none
   */
  readonly corpus?: { readonly skills?: boolean; readonly plugins?: readonly string[]; readonly marketplace?: boolean };
  /** More config.yaml lines (top-level keys). */
  readonly config?: readonly string[];
  /** extensions_config.json. @default empty sections */
  readonly extensions?: Record<string, unknown>;
  /** More files in the project folder, relative to it. */
  readonly files?: Record<string, string>;
  /** More environment variables for both processes. */
  readonly env?: Readonly<Record<string, string>>;
}

export interface ConsoleBackend {
  /** The console: the gateway's origin and `/`. */
  readonly url: string;
  /** The gateway's origin (no trailing slash): `/api`, `/agent`, the console. */
  readonly gatewayUrl: string;
  /** The agent server's own origin (tests reach it through `/agent` like the browser does). */
  readonly agentUrl: string;
  /** The project folder both processes run in (config.yaml, script.yaml, skills/, plugins/). */
  readonly projectDir: string;
  /** The services' data folder. */
  readonly dataDir: string;
  /** The administrator's key, when `apiKey` was set. */
  readonly apiKey?: string;
  /** The OpenID provider, when `openId` was set. */
  readonly openId?: OpenIdProvider;
  /** One JSON request to the gateway, with the administrator's key when there is one (or `key`). */
  api(method: string, route: string, body?: unknown, key?: string): Promise<{ status: number; body: Record<string, unknown> }>;
  /** A user made through POST /api/users (needs `apiKey`): their id and key. */
  createUser(name: string, role?: "user" | "admin"): Promise<{ id: string; key: string }>;
  close(): Promise<void>;
}

/**
 * The real gateway (`thinktank gateway`) and agent server as child processes over a fresh project
 * folder, on free ports, with the scripted chat model and the console built (when stale). The
 * gateway serves the console at `/` and the agent API under `/agent`, as `npm start` does.
 */
export async function startConsoleBackend(options: ConsoleBackendOptions = {}): Promise<ConsoleBackend> {
  const apiKey = options.apiKey === true ? `tt-console-test-${crypto.randomBytes(12).toString("hex")}` : options.apiKey || undefined;
  const openIdOptions = options.openId === true ? {} : options.openId || undefined;
  const built = ensureConsoleBuilt();
  const openId = openIdOptions ? await startOpenIdProvider() : undefined;
  let fixture: ProjectFixture | undefined;
  let agent: AgentProcess | undefined;
  let gateway: GatewayProcess | undefined;
  const close = async () => {
    await Promise.allSettled([agent?.stop(), gateway?.stop()]);
    await openId?.stop();
    fixture?.cleanup();
  };
  try {
    const jwt = openId && openIdOptions ? ["auth:", "  jwt:", `    issuer: ${openId.issuer}`, `    audience: ${openIdOptions.audience ?? "thinktank"}`] : [];
    const oidc = openIdOptions?.clientId ? ["console:", "  oidc:", `    client_id: ${openIdOptions.clientId}`] : [];
    fixture = await makeProjectFixture({
      script: options.script ?? consoleScript,
      config: [...jwt, ...oidc, ...(options.config ?? [])],
      ...(options.extensions ? { extensions: options.extensions } : {}),
      ...(options.files ? { files: options.files } : {}),
      env: { ...options.env, ...(apiKey ? { THINKTANK_API_KEY: apiKey } : {}) },
    });
    if (options.corpus?.skills) fs.cpSync(path.join(corpusDir(), "anthropic-skills"), path.join(fixture.dir, "skills", "custom"), { recursive: true });
    const project = fixture;
    [agent, gateway] = await Promise.all([startAgentProcess(project.env), startGatewayProcess(project), built]);
  } catch (error) {
    await close();
    throw error;
  }
  const gatewayUrl = gateway.url;
  const api: ConsoleBackend["api"] = async (method, route, body, key = apiKey) => {
    const response = await fetch(`${gatewayUrl}${route}`, {
      method,
      headers: { ...(key ? { "x-api-key": key } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    let parsed: Record<string, unknown> = {};
    try {
      parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      parsed = { text };
    }
    return { status: response.status, body: parsed };
  };
  const backend: ConsoleBackend = {
    url: `${gatewayUrl}/`,
    gatewayUrl,
    agentUrl: agent.url,
    projectDir: fixture.dir,
    dataDir: path.join(fixture.dir, "data"),
    ...(apiKey ? { apiKey } : {}),
    ...(openId ? { openId } : {}),
    api,
    createUser: async (name, role = "user") => {
      const created = await api("POST", "/api/users", { name, role });
      if (created.status !== 201) throw new Error(`POST /api/users ${name}: ${created.status} ${JSON.stringify(created.body)}`);
      return { id: created.body.id as string, key: created.body.api_key as string };
    },
    close,
  };
  try {
    await installFromCorpus(backend, options.corpus);
  } catch (error) {
    await close();
    throw error;
  }
  return backend;
}

async function installFromCorpus(backend: ConsoleBackend, corpus: ConsoleBackendOptions["corpus"]): Promise<void> {
  if (!corpus?.plugins?.length && !corpus?.marketplace) return;
  const root = path.join(corpusDir(), "knowledge-work-plugins");
  for (const plugin of corpus.plugins ?? []) {
    const installed = await backend.api("POST", "/api/plugins/install", { marketplace: root, plugin });
    if (installed.status !== 201) throw new Error(`installing the corpus plugin ${plugin}: ${installed.status} ${JSON.stringify(installed.body)}`);
  }
  if (corpus.marketplace) {
    const added = await backend.api("POST", "/api/marketplaces", { source: root, name: "knowledge-work" });
    if (added.status !== 201) throw new Error(`adding the corpus marketplace: ${added.status} ${JSON.stringify(added.body)}`);
  }
}
