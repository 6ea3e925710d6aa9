// A real agent server for the thread files tests: config with small files.* limits, two users
// (made with identity's users.create) and the operator's key, on a free port.
import fs from "node:fs";
import path from "node:path";
import { loadConfig } from "@thinktank/core";
import { freePort } from "@thinktank/testing";
import { buildAgentServer, type AgentServer } from "../../src/server/build-agent-server.js";
import { testScript } from "./agent-fixture.js";
import { makeProjectFixture } from "./project-fixture.js";

export interface FilesServer {
  readonly server: AgentServer;
  readonly url: string;
  readonly dataDir: string;
  readonly adminKey: string;
  readonly alice: string;
  readonly bob: string;
  /** A new thread of `key`'s caller. */
  thread(key: string): Promise<string>;
  /** A request with `key`; JSON body when `body` is an object. */
  call(key: string, method: string, route: string, init?: { body?: RequestInit["body"] | object; headers?: Record<string, string> }): Promise<Response>;
  /** POST /threads/:id/files with these files as `file` fields. */
  upload(key: string, threadId: string, files: readonly { name: string; bytes: Uint8Array | string }[]): Promise<Response>;
  /** Everything left in the thread's staging folder (uploads in progress). */
  staging(threadId: string): string[];
  close(): Promise<void>;
}

/** `files`: the files.* limits to set; `conversions`: files.conversion.enabled (off by default here: most tests are about the API, not the converter). */
export async function startFilesServer(files: Record<string, number>, options: { conversions?: boolean } = {}): Promise<FilesServer> {
  const adminKey = "admin-key-for-the-files-test";
  const project = await makeProjectFixture({
    script: testScript,
    config: ["files:", ...Object.entries(files).map(([key, value]) => `  ${key}: ${value}`), "  conversion:", `    enabled: ${options.conversions === true}`],
  });
  const config = loadConfig({ cwd: project.dir, env: { THINKTANK_API_KEY: adminKey } });
  const server = await buildAgentServer(config, { logger: false });
  const port = await freePort();
  await server.app.listen({ host: "127.0.0.1", port });
  const url = `http://127.0.0.1:${port}`;
  const [alice, bob] = await Promise.all(["alice", "bob"].map(async (name) => (await server.identity.users.create({ name, role: "user" })).apiKey));
  const call: FilesServer["call"] = (key, method, route, init = {}) => {
    const json = init.body !== undefined && typeof init.body === "object" && !(init.body instanceof FormData) && !(init.body instanceof Uint8Array) && !(init.body instanceof ReadableStream);
    return fetch(`${url}${route}`, {
      method,
      headers: { "x-api-key": key, ...(json ? { "content-type": "application/json" } : {}), ...init.headers },
      ...(init.body === undefined ? {} : { body: json ? JSON.stringify(init.body) : (init.body as RequestInit["body"]) }),
    });
  };
  return {
    server,
    url,
    dataDir: config.data_dir,
    adminKey,
    alice: alice as string,
    bob: bob as string,
    thread: async (key) => ((await (await call(key, "POST", "/threads", { body: {} })).json()) as { thread_id: string }).thread_id,
    call,
    upload: (key, threadId, parts) => {
      const form = new FormData();
      for (const part of parts) form.append("file", new Blob([part.bytes]), part.name);
      return call(key, "POST", `/threads/${threadId}/files`, { body: form });
    },
    staging: (threadId) => {
      const folder = path.join(config.data_dir, "user-data", threadId, ".staging");
      return fs.existsSync(folder) ? fs.readdirSync(folder, { recursive: true }).map(String) : [];
    },
    close: async () => {
      await server.close();
      project.cleanup();
    },
  };
}
