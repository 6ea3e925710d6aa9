/**
 * A stdio MCP server in plain Node (no dependencies; write it to a `.mjs` file and run it with
 * `node`) with one tool, `probe`, that runs hostProbeScript (at `$PROBE_SCRIPT`, with the Python at
 * `$PROBE_PYTHON`) as its own child and answers its report: what a stdio server the service started
 * can see of the service. With `$PROBE_LEAVE` set it leaves `(setsid sleep $PROBE_LEAVE &)` behind at
 * start, double-forked out of its process group, so a test can check the server's children die
 * with it. The arguments of a `probe` call are the HostProbeRequest. A second tool, `fetch`, reports
 * what the server's network reaches: `{ url }` fetches the URL with the global fetch (a sandboxed
 * server's goes through its egress proxy) and answers `{ status, body }` or `{ error }`; `{ direct:
 * "host:port" }` opens a TCP connection itself, past any proxy, and answers `{ connected }` or `{ error }`.
 */
export const probeMcpServerScript = String.raw`import { execFileSync, spawn } from "node:child_process";
import net from "node:net";
import readline from "node:readline";

if (process.env.PROBE_LEAVE) spawn("/bin/sh", ["-c", "(setsid sleep " + process.env.PROBE_LEAVE + " >/dev/null 2>&1 &)"], { stdio: "ignore" });

const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");
const tool = { name: "probe", description: "Reports what this server can see of the process that started it.", inputSchema: { type: "object" } };
const fetchTool = { name: "fetch", description: "Fetches a URL, or connects to host:port directly, and says what happened.", inputSchema: { type: "object" } };
const answer = (id, report) => send({ id, result: { content: [{ type: "text", text: JSON.stringify(report) }], structuredContent: report } });
const reach = async ({ url, direct }) => {
  if (direct) {
    const [host, port] = [direct.slice(0, direct.lastIndexOf(":")), Number(direct.slice(direct.lastIndexOf(":") + 1))];
    return new Promise((resolve) => {
      const socket = net.connect({ host, port, timeout: 5000 }, () => { socket.destroy(); resolve({ connected: true }); });
      socket.on("timeout", () => { socket.destroy(); resolve({ error: "timeout" }); });
      socket.on("error", (error) => resolve({ error: error.code ?? error.message }));
    });
  }
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(10000) });
    return { status: response.status, body: (await response.text()).slice(0, 300) };
  } catch (error) {
    return { error: String(error.cause?.message ?? error.message) };
  }
};

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  switch (message.method) {
    case "initialize":
      return send({ id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "probe", version: "1.0.0" } } });
    case "ping":
      return send({ id: message.id, result: {} });
    case "tools/list":
      return send({ id: message.id, result: { tools: [tool, fetchTool] } });
    case "tools/call": {
      if (message.params.name === "fetch") return void reach(message.params.arguments ?? {}).then((report) => answer(message.id, report));
      const input = JSON.stringify(message.params.arguments ?? {}) + "\n";
      const text = execFileSync(process.env.PROBE_PYTHON, [process.env.PROBE_SCRIPT], { input, encoding: "utf8", env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } });
      return send({ id: message.id, result: { content: [{ type: "text", text }], structuredContent: JSON.parse(text) } });
    }
    default:
      return send({ id: message.id, error: { code: -32601, message: "no method " + message.method } });
  }
});
`;
