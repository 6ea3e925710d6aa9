// The agent server's log masks secrets as the gateway's does: it wrote request URLs with their
// `?api_key=` / `?token=` values and every other line through Fastify's plain pino, unmasked.
// A real agent process; its own stdout.
import { describe, expect, it } from "vitest";
import { useSuiteAgent } from "./support/suite-agent.js";

const configYaml = ["data_dir: data", "log:", "  level: info", "models:", "  default: scripted", "  providers:", "    scripted:", "      provider: scripted", "      script: script.yaml", ""].join("\n");
const suite = useSuiteAgent({ configYaml });

describe("the agent server's log", { timeout: 60_000 }, () => {
  it("masks secret query values in the access line's URL", async () => {
    const { url } = suite.agent;
    const key = "AbCdEfGh0123456789IjKlMnOp";
    const missing = await fetch(`${url}/threads/00000000-0000-4000-8000-000000000000?api_key=plain-query-secret&token=another-query-secret&page=2&id=${key}`, {
      headers: { "x-request-id": "redaction-1" },
    });
    expect(missing.status).toBe(404);
    // A 4xx is logged at info (the default level): its access line names the URL.
    await suite.agent.lines.waitFor((line) => line.includes('"reqId":"redaction-1"'), 10_000);
    const line = suite.agent.lines.lines.find((each) => each.includes('"reqId":"redaction-1"')) as string;
    expect(line).toContain("api_key=[redacted]");
    expect(line).toContain("token=[redacted]");
    expect(line).toContain("page=2");
    expect(suite.agent.output()).not.toContain("plain-query-secret");
    expect(suite.agent.output()).not.toContain("another-query-secret");
    expect(suite.agent.output()).not.toContain(key);
  });
});
