// One gateway and one agent server per suite, over one project folder, the way a user runs them:
// both processes hold a unique THINKTANK_API_KEY and a fake model key (which nothing they start may
// ever see), the data folder holds an OAuth key and a token file beside the threads database, and a
// loopback listener stands where an attacker would like to connect. Packages are installed through
// the gateway's HTTP API with the key; runs go through the LangGraph SDK with the scripted model.
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll } from "vitest";
import { startAgentProcess, type AgentProcess } from "../support/agent-process.js";
import { makeProjectFixture, startGatewayProcess, type GatewayProcess, type ProjectFixture } from "../support/project-fixture.js";

export interface AttackStackOptions {
  readonly backend: "deno" | "bubblewrap";
  readonly hostPrograms: "allow" | "deny";
  /** The scripted model's script (JSON is YAML). */
  readonly script: (listener: { port: number }) => unknown;
}

/** What nothing the service starts may ever see or hand back. */
export interface StackSecrets {
  readonly apiKey: string;
  readonly modelKey: string;
  /** The OAuth token store's key file content (data/oauth/secret.key). */
  readonly oauthKey: string;
  /** A token file's content (data/oauth/servers/<hash>.json). */
  readonly oauthToken: string;
}

export interface AttackStack {
  readonly project: ProjectFixture;
  readonly gateway: GatewayProcess;
  readonly agent: AgentProcess;
  readonly client: Client;
  readonly secrets: StackSecrets;
  /** The loopback listener, and every connection it saw (it answers none). */
  readonly listener: { readonly port: number; readonly connections: readonly string[] };
  /** A JSON request to the gateway with the API key. */
  request(method: string, route: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }>;
  /** A multipart upload (field `file`) to the gateway with the API key. */
  upload(route: string, fileName: string, data: Buffer): Promise<{ status: number; body: Record<string, unknown> }>;
}

/** Registers beforeAll/afterAll that start the stack and stop it; read its fields inside tests. */
export function useAttackStack(options: AttackStackOptions): AttackStack {
  const started: { project?: ProjectFixture; gateway?: GatewayProcess; agent?: AgentProcess; client?: Client; server?: net.Server; port?: number } = {};
  const connections: string[] = [];
  const secrets: StackSecrets = {
    apiKey: `tt-attack-key-${crypto.randomUUID()}`,
    modelKey: `sk-ant-attack-${crypto.randomUUID()}`,
    oauthKey: crypto.randomBytes(32).toString("base64"),
    oauthToken: `oauth-token-${crypto.randomUUID()}`,
  };

  beforeAll(async () => {
    started.server = net.createServer((socket) => {
      connections.push(`${socket.remoteAddress}:${socket.remotePort}`);
      socket.destroy();
    });
    await new Promise<void>((resolve) => started.server?.listen(0, "127.0.0.1", resolve));
    started.port = (started.server.address() as net.AddressInfo).port;
    const project = await makeProjectFixture({
      script: JSON.stringify(options.script({ port: started.port })),
      config: ["sandbox:", `  backend: ${options.backend}`, "  warm_pool_size: 1", "plugins:", `  host_programs: ${options.hostPrograms}`],
      env: { THINKTANK_API_KEY: secrets.apiKey, ANTHROPIC_API_KEY: secrets.modelKey },
    });
    started.project = project;
    const tokenFile = `${crypto.createHash("sha256").update("elsewhere").digest("hex").slice(0, 40)}.json`;
    fs.mkdirSync(path.join(project.dir, "data/oauth/servers"), { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(project.dir, "data/oauth/secret.key"), `${secrets.oauthKey}\n`, { mode: 0o600 });
    fs.writeFileSync(path.join(project.dir, "data/oauth/servers", tokenFile), JSON.stringify({ token: secrets.oauthToken }), { mode: 0o600 });
    fs.writeFileSync(path.join(project.dir, "host-notes.txt"), "host notes, outside the data folder\n");
    const [agent, gateway] = await Promise.allSettled([startAgentProcess(project.env), startGatewayProcess(project)]);
    if (agent.status === "fulfilled") started.agent = agent.value;
    if (gateway.status === "fulfilled") started.gateway = gateway.value;
    for (const outcome of [agent, gateway]) if (outcome.status === "rejected") throw outcome.reason;
  }, 300_000);

  afterAll(async () => {
    await Promise.all([started.agent?.stop(), started.gateway?.stop()]);
    await new Promise((resolve) => (started.server ? started.server.close(resolve) : resolve(undefined)));
    started.project?.cleanup();
  });

  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the attack stack's ${what} is not started (read it inside a test)`);
    return value;
  };
  const answer = async (response: Response) => {
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  };
  return {
    get project() {
      return ready(started.project, "project");
    },
    get gateway() {
      return ready(started.gateway, "gateway");
    },
    get agent() {
      return ready(started.agent, "agent");
    },
    get client() {
      started.client ??= new Client({ apiUrl: ready(started.agent, "agent").url, apiKey: secrets.apiKey, callerOptions: { maxRetries: 0 } });
      return started.client;
    },
    secrets,
    listener: {
      get port() {
        return ready(started.port, "listener");
      },
      connections,
    },
    async request(method, route, body) {
      const headers: Record<string, string> = { "x-api-key": secrets.apiKey, ...(body === undefined ? {} : { "content-type": "application/json" }) };
      return answer(await fetch(`${ready(started.gateway, "gateway").url}${route}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
    },
    async upload(route, fileName, data) {
      const form = new FormData();
      form.append("file", new Blob([data]), fileName);
      return answer(await fetch(`${ready(started.gateway, "gateway").url}${route}`, { method: "POST", headers: { "x-api-key": secrets.apiKey }, body: form }));
    },
  };
}
