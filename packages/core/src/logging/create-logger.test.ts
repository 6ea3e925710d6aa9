import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "./create-logger.js";
import { redactSecrets } from "./redact-secrets.js";

function capture(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  let text = "";
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  return { stream, lines: () => text.trim().split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe("createLogger", () => {
  it("writes JSON lines with the name and level, and honours the level", () => {
    const out = capture();
    const logger = createLogger({ level: "warn", name: "gateway", destination: out.stream });
    logger.info("hidden");
    logger.warn({ port: 8001 }, "shown");
    expect(out.lines()).toEqual([expect.objectContaining({ name: "gateway", level: 40, msg: "shown", port: 8001 })]);
  });

  it("masks secrets under secret-looking keys at any depth, in child bindings' objects too", () => {
    const out = capture();
    const logger = createLogger({ destination: out.stream });
    const headers = { authorization: "Bearer abcdefgh12345678", "x-api-key": "k-123", accept: "json" };
    logger.info({ headers, config: { nested: { client_secret: "s", password: "p", github_token: "t", apiKey: "a", note: "fine" } } }, "request");
    const [line] = out.lines();
    expect(line?.headers).toEqual({ authorization: "[redacted]", "x-api-key": "[redacted]", accept: "json" });
    expect(line?.config).toEqual({ nested: { client_secret: "[redacted]", password: "[redacted]", github_token: "[redacted]", apiKey: "[redacted]", note: "fine" } });
    expect(headers.authorization).toBe("Bearer abcdefgh12345678");
  });

  it("masks credentials inside strings and request URLs", () => {
    const out = capture();
    const logger = createLogger({ destination: out.stream });
    logger.info({ req: { method: "GET", url: "/api/x?token=abc&page=2", socket: { remotePort: 5 } } }, "calling https://u:pw@host/?key=zzz with Bearer abcdefghijkl");
    const [line] = out.lines();
    expect(line?.req).toEqual({ method: "GET", url: "/api/x?token=[redacted]&page=2", remotePort: 5 });
    expect(JSON.stringify(line)).not.toMatch(/abc&|zzz|pw@|abcdefghijkl/);
  });
});

describe("redactSecrets", () => {
  it("copies plain data, leaves class instances to serializers, and survives cycles", () => {
    const error = new Error("boom");
    const cyclic: Record<string, unknown> = { token: "x" };
    cyclic.self = cyclic;
    const result = redactSecrets({ error, cyclic, list: [{ secret: 1 }] });
    expect(result.error).toBe(error);
    expect(result.cyclic.token).toBe("[redacted]");
    expect(result.list).toEqual([{ secret: "[redacted]" }]);
  });

  it("masks words shaped as well-known keys or JWTs in free text (a program's stderr in a reason), and leaves ids and hashes", () => {
    const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJlLXBhcnQ";
    const text = `the connection closed (stderr: bad credentials ghp_0123456789abcdefghijABCDEFGHIJ012345, key=sk-ant-api03-abcdefgh1234 token ${jwt})`;
    expect(redactSecrets({ reason: text }).reason).toBe("the connection closed (stderr: bad credentials [redacted], key=[redacted] token [redacted])");
    const ordinary = "thread 3f2a9c1e-0b7d-4c55-9e21-6a8f0d4b7c13, sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08, task-subtask_1";
    expect(redactSecrets(ordinary)).toBe(ordinary);
  });
});
