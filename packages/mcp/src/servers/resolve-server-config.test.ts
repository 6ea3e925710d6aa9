import { describe, expect, it } from "vitest";
import { entryHash, resolvedConfigHash, stableStringify } from "./config-hash.js";
import { redactUrl } from "./redact-url.js";
import { resolveServerConfig, sandboxedStdioUnsupported } from "./resolve-server-config.js";
import type { McpServerEntry } from "./server-entry.js";
import { transportKindOf } from "./transport-kind.js";

const hostEnv = { PATH: "/usr/bin:/bin", HOME: "/home/me", API_TOKEN: "s3cret", HOST_ONLY_SECRET: "do-not-leak", EMPTY: "" };

describe("transportKindOf", () => {
  it.each([
    [{ command: "node" }, "stdio"],
    [{ type: "stdio", command: "node" }, "stdio"],
    [{ type: "SSE", url: "http://x" }, "sse"],
    [{ type: "http", url: "http://x" }, "http"],
    [{ type: "streamable-http", url: "http://x" }, "http"],
    [{ type: "streamableHttp", url: "http://x" }, "http"],
    [{ url: "http://x" }, "http"],
    [{ type: "websocket", url: "ws://x" }, undefined],
  ] as const)("%j → %s", (entry, expected) => {
    expect(transportKindOf(entry as McpServerEntry)).toBe(expected);
  });
});

describe("resolveServerConfig", () => {
  it("resolves a stdio entry with placeholders and gives the child only PATH, HOME and its own env", () => {
    const result = resolveServerConfig(
      {
        command: "${NODE_BIN:-node}",
        args: ["server.js", "--token=$API_TOKEN", "--port=${PORT:-3000}"],
        env: { TOKEN: "${API_TOKEN}", PLAIN: "x" },
        cwd: "$HOME/work",
      },
      { env: hostEnv },
    );
    expect(result).toEqual({
      ok: true,
      config: {
        transport: "stdio",
        command: "node",
        args: ["server.js", "--token=s3cret", "--port=3000"],
        env: { PATH: "/usr/bin:/bin", HOME: "/home/me", TOKEN: "s3cret", PLAIN: "x" },
        cwd: "/home/me/work",
      },
    });
    if (result.ok && result.config.transport === "stdio") expect(Object.values(result.config.env)).not.toContain("do-not-leak");
  });

  it("lets the entry's own env override PATH", () => {
    const result = resolveServerConfig({ command: "node", env: { PATH: "/opt/bin" } }, { env: hostEnv });
    expect(result.ok && result.config.transport === "stdio" && result.config.env.PATH).toBe("/opt/bin");
  });

  it("resolves remote entries, headers included", () => {
    expect(
      resolveServerConfig({ type: "http", url: "https://api.example.com/mcp?key=${API_TOKEN}", headers: { Authorization: "Bearer ${API_TOKEN}" } }, { env: hostEnv }),
    ).toEqual({
      ok: true,
      config: { transport: "http", url: "https://api.example.com/mcp?key=s3cret", headers: { Authorization: "Bearer s3cret" } },
    });
    expect(resolveServerConfig({ type: "sse", url: "http://127.0.0.1:9/sse" }, { env: {} })).toEqual({
      ok: true,
      config: { transport: "sse", url: "http://127.0.0.1:9/sse", headers: {} },
    });
  });

  it.each<[string, McpServerEntry, Record<string, string>, string]>([
    ["an unset variable", { command: "node", args: ["--key=${MISSING_KEY}"] }, {}, "environment variable $MISSING_KEY is not set"],
    ["two unset variables", { type: "http", url: "https://$HOST_A/mcp", headers: { X: "${HOST_B}" } }, {}, "environment variables $HOST_A, $HOST_B are not set"],
    ["an empty url", { type: "http", url: "" }, {}, "'url' is empty"],
    ["no url", { type: "sse" }, {}, "a sse server needs a 'url'"],
    ["a url that expands to nothing", { type: "http", url: "${EMPTY}" }, { EMPTY: "" }, "the url is empty after variable expansion"],
    ["a url that does not parse", { type: "http", url: "not a url" }, {}, "the url is not a valid URL"],
    ["a file: url", { type: "http", url: "file:///etc/passwd" }, {}, "the url must be http: or https: (got 'file:')"],
    ["an unknown type", { type: "websocket", url: "ws://x" }, {}, "unknown transport type 'websocket' (expected stdio, sse or http)"],
    ["no command", { type: "stdio" }, {}, "a stdio server needs a 'command'"],
    ["an empty command", { command: "  " }, {}, "'command' is empty"],
    ["a command that is not a string", { command: ["node"] as unknown as string }, {}, "'command' must be a string (got a list)"],
    ["args that are not strings", { command: "node", args: [1] as unknown as string[] }, {}, "'args' must be a list of strings (got a list)"],
    ["env values that are not strings", { command: "node", env: { A: 1 } as unknown as Record<string, string> }, {}, "'env' must map names to strings (got an object)"],
    ["headers that are a string", { type: "http", url: "http://x", headers: "h" as unknown as Record<string, string> }, {}, "'headers' must map names to strings (got string \"h\")"],
    ["a merged entry already marked unavailable", { command: "node", unavailable_reason: "plugin server needs $TOKEN" }, {}, "plugin server needs $TOKEN"],
  ])("reports %s as the reason", (_label, entry, env, reason) => {
    const result = resolveServerConfig(entry, { env });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toBe(reason);
  });

  it("leaves a stdio server marked sandbox: true unavailable unless the caller runs stdio servers in the sandbox", () => {
    const refused = resolveServerConfig({ command: "node", sandbox: true }, { env: hostEnv });
    expect(refused).toMatchObject({ ok: false, reason: sandboxedStdioUnsupported });
    expect(resolveServerConfig({ command: "node", sandbox: true }, { env: hostEnv, sandboxedStdio: true }).ok).toBe(true);
    expect(resolveServerConfig({ type: "http", url: "https://example.com/mcp", sandbox: true }, { env: hostEnv }).ok).toBe(true);
    // Where the sandbox runs no server (the deno backend): its reason.
    expect(resolveServerConfig({ command: "node", sandbox: true }, { env: hostEnv, sandboxedStdio: { ok: false, reason: "deno runs no host program" } })).toMatchObject({ ok: false, reason: "deno runs no host program" });
  });

  it("gives a sandboxed stdio server its network and only its own env (no host PATH or HOME), so a change of either restarts it", () => {
    const entry = { command: "npx", args: ["-y", "server"], env: { TOKEN: "${API_TOKEN}" }, sandbox: true, network: ["registry.npmjs.org"] };
    const resolved = resolveServerConfig(entry, { env: hostEnv, sandboxedStdio: true });
    expect(resolved).toEqual({ ok: true, config: { transport: "stdio", command: "npx", args: ["-y", "server"], env: { TOKEN: "s3cret" }, sandbox: { network: ["registry.npmjs.org"] } } });
    const onHost = resolveServerConfig({ ...entry, sandbox: false }, { env: hostEnv });
    expect(onHost.ok && onHost.config.transport === "stdio" ? Object.keys(onHost.config.env) : []).toContain("PATH");
    expect(onHost.ok && onHost.config.transport === "stdio" ? onHost.config.sandbox : "not ok").toBeUndefined();
    const other = resolveServerConfig({ ...entry, network: ["*.npmjs.org"] }, { env: hostEnv, sandboxedStdio: true });
    expect(resolved.ok && other.ok && resolvedConfigHash(resolved.config) !== resolvedConfigHash(other.config)).toBe(true);
  });

  it.each([
    [{ command: "node", sandbox: "yes" }, "'sandbox' must be true or false (got string \"yes\")"],
    [{ command: "node", sandbox: true, network: "api.github.com" }, "'network' must be a list of host patterns (got string \"api.github.com\")"],
    [{ command: "node", sandbox: true, network: ["https://api.github.com/"] }, "'network' has string \"https://api.github.com/\", which is not a host pattern (host, host:port, *.domain or *.domain:port)"],
  ])("refuses %j", (entry, reason) => {
    expect(resolveServerConfig(entry as never, { env: hostEnv, sandboxedStdio: true })).toMatchObject({ ok: false, reason });
  });

  it("never puts a resolved secret into a failure reason", () => {
    const result = resolveServerConfig({ type: "http", url: "${API_TOKEN}" }, { env: hostEnv });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).not.toContain("s3cret");
  });
});

describe("hashes", () => {
  it("keys sessions by the resolved config: a changed secret changes the key", () => {
    const entry: McpServerEntry = { command: "node", env: { TOKEN: "${API_TOKEN}" } };
    const first = resolveServerConfig(entry, { env: hostEnv });
    const second = resolveServerConfig(entry, { env: { ...hostEnv, API_TOKEN: "rotated" } });
    if (!first.ok || !second.ok) throw new Error("expected both to resolve");
    expect(resolvedConfigHash(first.config)).not.toBe(resolvedConfigHash(second.config));
    expect(resolvedConfigHash(first.config)).toBe(resolvedConfigHash({ ...first.config }));
  });

  it("hashes entries by their transport fields only, placeholders as written", () => {
    const base: McpServerEntry = { command: "node", args: ["a"], env: { T: "${TOKEN}" } };
    expect(entryHash(base)).toBe(entryHash({ ...base, description: "other words", enabled: true }));
    expect(entryHash(base)).not.toBe(entryHash({ ...base, args: ["b"] }));
    expect(entryHash({ type: "streamableHttp", url: "http://x" })).toBe(entryHash({ type: "http", url: "http://x" }));
  });

  it("stringifies with sorted keys at every level", () => {
    expect(stableStringify({ b: 1, a: { d: [1, { f: 1, e: 2 }], c: undefined } })).toBe('{"a":{"d":[1,{"e":2,"f":1}]},"b":1}');
  });
});

describe("redactUrl", () => {
  it("drops credentials and query strings", () => {
    expect(redactUrl("https://user:pw@api.example.com/mcp?token=abc#x")).toBe("https://api.example.com/mcp?…");
    expect(redactUrl("http://127.0.0.1:8080/sse")).toBe("http://127.0.0.1:8080/sse");
    expect(redactUrl("nonsense")).toBe("(invalid url)");
  });
});
