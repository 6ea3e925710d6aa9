import { describe, expect, it } from "vitest";
import { protectedReference, serviceSecretVariables } from "./protected-variables.js";

describe("serviceSecretVariables", () => {
  it("protects THINKTANK_*, the default model keys and every key variable config names", () => {
    const isSecret = serviceSecretVariables({
      models: { default: undefined, providers: { claude: { provider: "anthropic", api_key_env: "MY_CLAUDE_KEY" } } },
      search: { default_limit: 10, max_limit: 50, embeddings: { provider: "openai", api_key_env: "EMBEDDINGS_KEY" } },
      web_search: { provider: "tavily", api_key_env: "SEARCH_KEY", timeout_ms: 1000, max_results: 5 },
    } as never);
    for (const name of ["THINKTANK_API_KEY", "THINKTANK_SECRET_KEY", "THINKTANK_ANYTHING", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "MY_CLAUDE_KEY", "EMBEDDINGS_KEY", "SEARCH_KEY"]) {
      expect(isSecret(name), name).toBe(true);
    }
    for (const name of ["GITHUB_TOKEN", "HOME", "MY_THINKTANK_NOTE"]) expect(isSecret(name), name).toBe(false);
    expect(serviceSecretVariables()("ANTHROPIC_API_KEY")).toBe(true);
  });
});

describe("protectedReference", () => {
  const isSecret = serviceSecretVariables();
  it("finds a protected name in every placeholder form, anywhere in a value, but not in keys or look-alikes", () => {
    expect(protectedReference({ env: { A: "Bearer ${THINKTANK_API_KEY}" } }, isSecret)).toBe("THINKTANK_API_KEY");
    expect(protectedReference(["x", "$OPENAI_API_KEY"], isSecret)).toBe("OPENAI_API_KEY");
    expect(protectedReference({ A: "${THINKTANK_SECRET_KEY:-none}" }, isSecret)).toBe("THINKTANK_SECRET_KEY");
    expect(protectedReference({ THINKTANK_API_KEY: "$GITHUB_TOKEN", B: "$THINKTANK_API_KEYS_NOTE" }, (name) => name === "THINKTANK_API_KEY")).toBeUndefined();
    expect(protectedReference({ A: "costs $5", B: 3, C: null }, isSecret)).toBeUndefined();
  });
});
