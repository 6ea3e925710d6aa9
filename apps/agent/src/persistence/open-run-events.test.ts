import fs from "node:fs";
import path from "node:path";
import { loadConfig } from "@thinktank/core";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";
import { openAgentStore } from "./open-agent-store.js";
import { openRunEvents } from "./open-run-events.js";

let temp: { dir: string; cleanup: () => void } | undefined;
afterEach(() => temp?.cleanup());

function configWith(yaml: string, env: Record<string, string> = {}) {
  temp = makeTempDir("tt-backends-");
  const file = path.join(temp.dir, "config.yaml");
  fs.writeFileSync(file, yaml);
  return loadConfig({ env: { THINKTANK_CONFIG: file, ...env }, cwd: temp.dir });
}

describe("choosing the threads and streams backends", () => {
  it("names the unset variable when postgres or redis is chosen without its URL, before connecting anywhere", async () => {
    const postgres = configWith("agent:\n  threads:\n    backend: postgres\n");
    await expect(openAgentStore(postgres)).rejects.toMatchObject({ code: "NOT_CONFIGURED", message: expect.stringContaining("DATABASE_URL (agent.threads.postgres_url_env) is not set") });
    const redis = configWith("agent:\n  threads:\n    backend: postgres\n  streams:\n    backend: redis\n    redis_url_env: MY_REDIS\n", { DATABASE_URL: "postgres://127.0.0.1:1/none" });
    await expect(openRunEvents(redis, { error: () => undefined })).rejects.toMatchObject({ code: "NOT_CONFIGURED", message: expect.stringContaining("MY_REDIS (agent.streams.redis_url_env) is not set: set it to a redis:// URL") });
  });
});
