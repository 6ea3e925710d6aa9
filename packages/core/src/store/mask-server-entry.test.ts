import { describe, expect, it } from "vitest";
import { isPlaceholderOnly, maskServerEntry } from "./mask-server-entry.js";

const secretish = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";

describe("maskServerEntry", () => {
  it("masks every env and header value but shows placeholders as written", () => {
    const masked = maskServerEntry({
      command: "npx",
      env: { GITHUB_TOKEN: "ghp_realtoken1234567890", DEBUG: "1", FROM_ENV: "${GITHUB_TOKEN}", BARE: "$HOME", DEFAULTED: "${X:-fallback}" },
      headers: { Authorization: "Bearer abc.def.ghi", "X-Trace": "on", "X-Key": "Bearer ${API_KEY}" },
    });
    expect(masked.env).toEqual({ GITHUB_TOKEN: "[redacted]", DEBUG: "[redacted]", FROM_ENV: "${GITHUB_TOKEN}", BARE: "$HOME", DEFAULTED: "${X:-fallback}" });
    expect(masked.headers).toEqual({ Authorization: "[redacted]", "X-Trace": "[redacted]", "X-Key": "Bearer ${API_KEY}" });
  });

  it("masks passwords and secret query parameters in URLs, keeping placeholders and harmless parameters", () => {
    const { url } = maskServerEntry({ type: "http", url: "https://user:hunter2@mcp.example.com/v1?api_key=abc123&region=eu&token=${TOKEN}&sig=xyz" });
    expect(url).toBe("https://user:[redacted]@mcp.example.com/v1?api_key=[redacted]&region=eu&token=${TOKEN}&sig=[redacted]");
  });

  it("masks secret-looking arguments", () => {
    const { args } = maskServerEntry({
      command: "server",
      args: ["--token", "plain-secret", "--api-key=abc", "--port", "8080", "API_KEY=xyz", secretish, "--url=https://x.io/?key=k1", "--token", "${TOKEN}", "/srv/data", "@scope/server-name"],
    });
    expect(args).toEqual(["--token", "[redacted]", "--api-key=[redacted]", "--port", "8080", "API_KEY=[redacted]", "[redacted]", "--url=https://x.io/?key=[redacted]", "--token", "${TOKEN}", "/srv/data", "@scope/server-name"]);
  });

  it("walks extra fields with the same rules and keeps the known harmless ones", () => {
    const masked = maskServerEntry({
      type: "sse",
      url: "https://a.example/sse",
      description: "Search things",
      enabled: false,
      oauth: { client_id: "app", client_secret: "s3cr3t", scopes: ["read"] },
      password: "pw",
      note: secretish,
    });
    expect(masked).toEqual({
      type: "sse",
      url: "https://a.example/sse",
      description: "Search things",
      enabled: false,
      oauth: { client_id: "app", client_secret: "[redacted]", scopes: ["read"] },
      password: "[redacted]",
      note: "[redacted]",
    });
  });

  it("masks an oauth block's client_secret unless it is a placeholder; the client id and scopes stay", () => {
    const oauth = { grant: "client_credentials", client_id: "svc-1", scopes: ["read"], token_url: "https://auth.example.com/token" };
    expect(maskServerEntry({ type: "http", url: "https://x/mcp", oauth: { ...oauth, client_secret: "literal-secret-value" } }).oauth).toEqual({ ...oauth, client_secret: "[redacted]" });
    expect(maskServerEntry({ type: "http", url: "https://x/mcp", oauth: { ...oauth, client_secret: "${SVC_SECRET}" } }).oauth).toEqual({ ...oauth, client_secret: "${SVC_SECRET}" });
  });

  it("leaves the entry it was given alone", () => {
    const entry = { command: "x", env: { A: "1" } };
    maskServerEntry(entry);
    expect(entry.env.A).toBe("1");
  });
});

describe("isPlaceholderOnly", () => {
  it.each([
    ["${A}", true],
    ["$A", true],
    ["${A}${B}", true],
    ["Bearer ${TOKEN}", true],
    ["${A:-x}", true],
    ["prefix-${A}", false],
    ["plain", false],
    ["", false],
  ])("%j → %s", (text, expected) => {
    expect(isPlaceholderOnly(text)).toBe(expected);
  });
});
