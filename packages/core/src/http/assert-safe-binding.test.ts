import { describe, expect, it } from "vitest";
import { assertSafeBinding } from "./assert-safe-binding.js";

describe("assertSafeBinding", () => {
  it("lets either service listen on loopback without a key, and anywhere with one", () => {
    for (const service of ["gateway", "agent"] as const) {
      expect(() => assertSafeBinding("127.0.0.1", undefined, service)).not.toThrow();
      expect(() => assertSafeBinding("::1", undefined, service)).not.toThrow();
      expect(() => assertSafeBinding("0.0.0.0", "secret", service)).not.toThrow();
    }
  });

  it("refuses another address without a key, saying how to fix it for that service", () => {
    expect(() => assertSafeBinding("0.0.0.0", undefined)).toThrow(/^gateway: refusing to listen on 0\.0\.0\.0 without an API key: .*GATEWAY_HOST/);
    expect(() => assertSafeBinding("0.0.0.0", "", "gateway")).toThrow(/refusing to listen/);
    expect(() => assertSafeBinding("192.168.1.10", undefined, "agent")).toThrow(/^refusing to listen on 192\.168\.1\.10 without THINKTANK_API_KEY: .*AGENT_HOST/);
  });
});
