import fs from "node:fs";
import path from "node:path";
import { createLogger, loadConfig } from "@thinktank/core";
import { makeProjectFixture, rawHttpRequest, startAgentProcess, type AgentProcess, type ProjectFixture } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGatewayDeps } from "../src/gateway-deps.js";
import { startGateway, type RunningGateway } from "../src/start-gateway.js";

// /agent/* on the gateway is the agent server (docs/console.md, "One origin"): a real agent process
// behind a real gateway on one project, the scripted model.

const script = `
name: proxy
rules:
  - id: wait
    when: { last_human: "^wait", step: 0, tool_available: wait_for_go }
    tool_calls:
      - name: wait_for_go
        args: {}
  - id: waited
    when: { last_tool_name: wait_for_go }
    reply: "went"
fallback:
  reply: "hello through the proxy"
`;

let project: ProjectFixture;
let agent: AgentProcess;
let gateway: RunningGateway;
let goFile = "";

beforeAll(async () => {
  project = await makeProjectFixture({ script, config: ["tools:", "  approval: never", "files:", "  max_file_mb: 0.01"] });
  goFile = path.join(project.dir, "go");
  const config = loadConfig({ cwd: project.dir, env: project.env });
  [agent, gateway] = await Promise.all([startAgentProcess(project.env), startGateway(config, createGatewayDeps(config, { logger: createLogger({ level: "silent" }) }))]);
}, 150_000);

afterAll(async () => {
  await gateway?.close();
  await agent?.stop();
  project?.cleanup();
});

const json = { "content-type": "application/json" };

async function newThread(headers: Record<string, string> = {}): Promise<string> {
  const response = await fetch(`${gateway.url}/agent/threads`, { method: "POST", headers: { ...json, ...headers }, body: "{}" });
  expect(response.status).toBe(200);
  return ((await response.json()) as { thread_id: string }).thread_id;
}

describe("the agent under /agent", { timeout: 90_000 }, () => {
  it("answers the agent's routes, with the gateway's own origin accepted for mutations and others refused", async () => {
    expect(await (await fetch(`${gateway.url}/agent/ok`)).json()).toEqual({ ok: true });
    // The console's own origin: the agent sees its own origin and Host, so no allowed_origins is needed anywhere.
    const threadId = await newThread({ origin: gateway.url, "sec-fetch-site": "same-origin" });
    const read = await fetch(`${gateway.url}/agent/threads/${threadId}`);
    expect(((await read.json()) as { thread_id: string }).thread_id).toBe(threadId);
    const crossSite = await fetch(`${gateway.url}/agent/threads`, { method: "POST", headers: { ...json, origin: "https://evil.example" }, body: "{}" });
    expect(crossSite.status).toBe(403);
    expect(((await crossSite.json()) as { code: string }).code).toBe("ORIGIN_NOT_ALLOWED");
    // A GET that cancels the run when the client goes is a mutation at the agent: a foreign Origin reaches it unchanged and is refused there.
    const cancelling = await fetch(`${gateway.url}/agent/threads/${threadId}/runs/x/stream?cancel_on_disconnect=true`, { headers: { origin: "https://evil.example" } });
    expect(cancelling.status).toBe(403);
    // DNS rebinding: a foreign Host never reaches the agent.
    const rebound = await rawHttpRequest(new URL("/agent/ok", gateway.url), "GET", { host: "evil.example" });
    expect(rebound.status).toBe(403);
    expect(rebound.body.code).toBe("HOST_NOT_ALLOWED");
  });

  it("streams a run's events as they happen (SSE unbuffered): the tool call arrives while the tool still waits", async () => {
    const tool = {
      name: "wait_for_go",
      description: "Waits until the test says go.",
      input_schema: { type: "object", properties: {}, additionalProperties: false },
      runtime: "node",
      script: `const fs = require("node:fs");\nconst deadline = Date.now() + 60000;\nwhile (!fs.existsSync(${JSON.stringify(goFile)}) && Date.now() < deadline) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);\nconsole.log(JSON.stringify({ went: fs.existsSync(${JSON.stringify(goFile)}) }));\n`,
      timeout: 60,
    };
    const created = await fetch(`${gateway.url}/api/tools`, { method: "POST", headers: json, body: JSON.stringify(tool) });
    expect(created.status, await created.clone().text()).toBe(201);
    const threadId = await newThread();
    const response = await fetch(`${gateway.url}/agent/threads/${threadId}/runs/stream`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ assistant_id: "lead_agent", input: { messages: [{ type: "human", content: "wait" }] }, stream_mode: ["updates"] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    // The model's tool call is an update before the tool runs; the tool waits for the go file, so the run is still going.
    while (!text.includes('"wait_for_go"')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended before the tool call:\n${text}`);
      text += decoder.decode(value, { stream: true });
    }
    expect(fs.existsSync(goFile)).toBe(false);
    expect(text).not.toContain("went");
    fs.writeFileSync(goFile, "go");
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text).toContain('"went"');
  });

  it("passes uploads to the agent, whose own upload limits apply", async () => {
    const threadId = await newThread();
    const small = new FormData();
    small.append("file", new Blob(["hello"], { type: "text/plain" }), "note.txt");
    const stored = await fetch(`${gateway.url}/agent/threads/${threadId}/files`, { method: "POST", body: small });
    expect(stored.status, await stored.clone().text()).toBe(201);
    expect(((await stored.json()) as { files: { name: string; size: number }[] }).files[0]).toMatchObject({ name: "note.txt", size: 5 });
    // files.max_file_mb is 0.01 (about 10 KB) at the agent; the gateway's own 50 MB body limit is not what decides.
    const large = new FormData();
    large.append("file", new Blob([Buffer.alloc(64 * 1024, 97)], { type: "text/plain" }), "big.txt");
    const refused = await fetch(`${gateway.url}/agent/threads/${threadId}/files`, { method: "POST", body: large });
    expect(refused.status).toBe(413);
  });
});
