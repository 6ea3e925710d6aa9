// The one way out of the sandbox: the MCP bridge, HTTP/1.1 over a host Unix socket.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { needs } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxPaths } from "../sandbox-paths.js";
import { sandboxFixture } from "../test-support/sandbox-fixture.js";
import type { SandboxFixture } from "../test-support/sandbox-fixture.js";

const token = "per-execution-token-123";

describe("bubblewrap sandbox bridge socket", needs("bubblewrap"), () => {
  let fixture: SandboxFixture;
  let workspace: string;
  let server: http.Server;
  let socketPath: string;
  const calls: Array<{ authorization: string | undefined; body: unknown }> = [];

  beforeAll(async () => {
    fixture = sandboxFixture({ warmPoolSize: 1 });
    workspace = fixture.workspace("bridge");
    // The bridge lives in a folder the sandbox user cannot reach: only the exposed path works.
    const bridgeDir = path.join(fixture.root, "bridge");
    fs.mkdirSync(bridgeDir, { mode: 0o700 });
    socketPath = path.join(bridgeDir, "bridge.sock");
    server = http.createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => (body += chunk));
      request.on("end", () => {
        const parsed = JSON.parse(body) as { server: string; tool: string; arguments: Record<string, unknown> };
        calls.push({ authorization: request.headers.authorization, body: parsed });
        const authorized = request.headers.authorization === `Bearer ${token}`;
        const reply = JSON.stringify(authorized ? { ok: true, isError: false, content: [{ type: "text", text: `echo: ${String(parsed.arguments.message)}` }] } : { ok: false, error: { code: "UNAUTHORIZED", message: "bad token" } });
        response.writeHead(authorized ? 200 : 401, { "content-type": "application/json", "content-length": Buffer.byteLength(reply) });
        response.end(reply);
      });
    });
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  });

  afterAll(async () => {
    server.close();
    await fixture.cleanup();
  });

  const callFromJavaScript = `import http from "node:http";
    const body = JSON.stringify({ server: "everything", tool: "echo", arguments: { message: "hi from js" } });
    const request = http.request({ socketPath: process.env.THINKTANK_BRIDGE_SOCKET, path: "/call", method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer " + process.env.THINKTANK_BRIDGE_TOKEN } }, (response) => {
      let text = ""; response.on("data", (chunk) => (text += chunk)); response.on("end", () => console.log(response.statusCode, text));
    });
    request.on("error", (error) => { console.log("ERROR", error.code); process.exitCode = 3; });
    request.end(body);`;

  it("exposes the bridge at its fixed path and carries a JavaScript call there and back", async () => {
    const result = await fixture.executor.run({ language: "javascript", source: callFromJavaScript, workspaceDir: workspace, bridgeSocket: socketPath, bridgeToken: token, timeoutMs: 60_000 });
    expect(result.error, result.stderr).toBeUndefined();
    expect(result.stdout).toContain('200 {"ok":true,"isError":false,"content":[{"type":"text","text":"echo: hi from js"}]}');
    expect(calls.at(-1)).toEqual({ authorization: `Bearer ${token}`, body: { server: "everything", tool: "echo", arguments: { message: "hi from js" } } });
  });

  it("hands the program's connections to bridgeConnection in-process when one is given (no second socket)", async () => {
    const before = calls.length;
    let handedOver = 0;
    const result = await fixture.executor.run({
      language: "javascript",
      source: callFromJavaScript,
      workspaceDir: workspace,
      bridgeSocket: socketPath,
      bridgeToken: token,
      bridgeConnection: (socket) => {
        handedOver += 1;
        server.emit("connection", socket);
      },
      timeoutMs: 60_000,
    });
    expect(result.error, result.stderr).toBeUndefined();
    expect(result.stdout).toContain('200 {"ok":true,"isError":false,"content":[{"type":"text","text":"echo: hi from js"}]}');
    expect(handedOver).toBe(1);
    expect(calls.length).toBe(before + 1);
  });

  it("tells the program where the bridge is, and with which token", async () => {
    const result = await fixture.executor.run({ language: "shell", source: 'echo "$THINKTANK_BRIDGE_SOCKET $THINKTANK_BRIDGE_TOKEN"; ls -l "$THINKTANK_BRIDGE_SOCKET"', workspaceDir: workspace, bridgeSocket: socketPath, bridgeToken: token });
    expect(result.stdout).toContain(`${sandboxPaths.bridgeSocket} ${token}`);
    expect(result.stdout).toMatch(/^s/m); // a socket
  });

  it("carries a Python call (half-closing client) the same way", async () => {
    const source = `import json, os, socket
body = json.dumps({"server": "everything", "tool": "echo", "arguments": {"message": "hi from python"}}).encode()
client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
client.connect(os.environ["THINKTANK_BRIDGE_SOCKET"])
head = f"POST /call HTTP/1.1\\r\\nHost: bridge\\r\\nContent-Type: application/json\\r\\nAuthorization: Bearer {os.environ['THINKTANK_BRIDGE_TOKEN']}\\r\\nContent-Length: {len(body)}\\r\\nConnection: close\\r\\n\\r\\n"
client.sendall(head.encode() + body)
client.shutdown(socket.SHUT_WR)
reply = b""
while chunk := client.recv(65536):
    reply += chunk
print(reply.decode().split("\\r\\n\\r\\n", 1)[1])`;
    const result = await fixture.executor.run({ language: "python", source, workspaceDir: workspace, bridgeSocket: socketPath, bridgeToken: token, timeoutMs: 60_000 });
    expect(result.error, result.stderr).toBeUndefined();
    expect(JSON.parse(result.stdout)).toEqual({ ok: true, isError: false, content: [{ type: "text", text: "echo: hi from python" }] });
  });

  it("is refused when the request has no bridge, even on a warm worker that once had one", async () => {
    await fixture.executor.prewarm({ language: "javascript", workspaceDir: workspace });
    const result = await fixture.executor.run({ language: "javascript", source: callFromJavaScript.replaceAll("process.env.THINKTANK_BRIDGE_SOCKET", JSON.stringify(sandboxPaths.bridgeSocket)), workspaceDir: workspace, timeoutMs: 60_000 });
    expect(result.warm).toBe(true);
    expect(result.stdout).toMatch(/ERROR (ECONNREFUSED|ECONNRESET|EPIPE)/);
    expect(result.stdout).not.toContain("200");
  });

  it("rejects a bridge path that is not a socket", async () => {
    const result = await fixture.executor.run({ language: "shell", source: "true", workspaceDir: workspace, bridgeSocket: path.join(workspace) });
    expect(result.error?.code).toBe("INVALID_PATH");
    expect(result.error?.message).toContain("expected a Unix socket");
  });
});
