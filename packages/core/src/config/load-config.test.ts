import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "./load-config.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "tt-config-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const write = (text: string): string => {
  const file = path.join(dir, "config.yaml");
  fs.writeFileSync(file, text);
  return file;
};

describe("loadConfig", () => {
  it("uses embedded defaults when there is no config.yaml, resolving paths against cwd", () => {
    const config = loadConfig({ cwd: dir, env: {} });
    expect(config.config_path).toBeUndefined();
    expect(config.gateway.port).toBe(8001);
    expect(config.agent.port).toBe(2024);
    expect(config.skills.path).toBe(path.join(dir, "skills"));
    expect(config.skills.container_path).toBe("/mnt/skills");
    expect(config.mcp.catalog_dir).toBe(path.join(dir, ".thinktank", "catalog"));
    expect(config.api_key).toBeUndefined();
  });

  it("resolves relative paths against the config file's own folder", () => {
    const sub = path.join(dir, "etc");
    fs.mkdirSync(sub);
    fs.writeFileSync(path.join(sub, "tt.yaml"), "skills:\n  path: ../my-skills\ndata_dir: /var/tt\n");
    const config = loadConfig({ cwd: "/", env: { THINKTANK_CONFIG: path.join(sub, "tt.yaml") } });
    expect(config.skills.path).toBe(path.join(dir, "my-skills"));
    expect(config.data_dir).toBe("/var/tt");
    expect(config.code_execution.code_api_dir).toBe("/var/tt/code-api");
  });

  it("lets the environment win over the file", () => {
    write("gateway:\n  port: 9000\n");
    const config = loadConfig({ cwd: dir, env: { GATEWAY_PORT: "9100", AGENT_PORT: "9200", THINKTANK_API_KEY: "k" } });
    expect(config.gateway.port).toBe(9100);
    expect(config.agent.port).toBe(9200);
    expect(config.api_key).toBe("k");
  });

  it("names the file, the key path and the reason for a wrong type", () => {
    const file = write("gateway:\n  port: eighty\n");
    expect(() => loadConfig({ cwd: dir, env: {} })).toThrowError(`${file}: gateway.port: must be integer`);
  });

  it("rejects unknown keys and bad enum values with the allowed values", () => {
    write("sandbox:\n  backend: docker\n  colour: red\n");
    let message = "";
    try {
      loadConfig({ cwd: dir, env: {} });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("sandbox: must NOT have additional properties 'colour'");
    expect(message).toContain("sandbox.backend: must be equal to one of the allowed values (auto, bubblewrap, deno, local)");
  });

  it("takes an empty config.yaml, or one whose every line is commented out, as all defaults", () => {
    for (const text of ["", "\n\n", "# gateway:\n#   port: 9000\n", "\uFEFF# nothing set\r\n   \r\n"]) {
      write(text);
      expect(loadConfig({ cwd: dir, env: {} }).gateway.port, JSON.stringify(text)).toBe(8001);
    }
  });

  it("reports malformed YAML with its position", () => {
    write("gateway:\n  port: [1,\n");
    expect(() => loadConfig({ cwd: dir, env: {} })).toThrowError(/not valid YAML: .*\(3:1\)/s);
  });

  it("rejects a bad port in the environment", () => {
    expect(() => loadConfig({ cwd: dir, env: { AGENT_PORT: "http" } })).toThrowError("AGENT_PORT=http: must be a port number");
  });

  it("returns a deeply frozen object", () => {
    const config = loadConfig({ cwd: dir, env: {} });
    expect(Object.isFrozen(config.gateway.archive)).toBe(true);
  });

  it("reads the scale-out keys (agent.runs, agent.streams), with defaults that leave one process as it was", () => {
    const defaults = loadConfig({ cwd: dir, env: {} });
    expect(defaults.agent.runs).toEqual({ heartbeat_seconds: 5, stale_after_seconds: 30 });
    expect(defaults.agent.streams).toEqual({ backend: "postgres", redis_url_env: "REDIS_URL" });
    write("agent:\n  threads:\n    backend: postgres\n  runs:\n    heartbeat_seconds: 2\n    stale_after_seconds: 12.5\n  streams:\n    backend: redis\n    redis_url_env: TT_REDIS\n");
    const config = loadConfig({ cwd: dir, env: {} });
    expect(config.agent.runs).toEqual({ heartbeat_seconds: 2, stale_after_seconds: 12.5 });
    expect(config.agent.streams).toEqual({ backend: "redis", redis_url_env: "TT_REDIS" });
    write("agent:\n  streams:\n    backend: kafka\n  runs:\n    heartbeat_seconds: 0\n    every: 1\n");
    let message = "";
    try {
      loadConfig({ cwd: dir, env: {} });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("agent.streams.backend: must be equal to one of the allowed values (postgres, redis)");
    expect(message).toContain("agent.runs.heartbeat_seconds: must be > 0");
    expect(message).toContain("agent.runs: must NOT have additional properties 'every'");
  });

  it("reads the third-party code keys with secure defaults, and the deprecated plugins.stdio_servers with a warning", () => {
    const defaults = loadConfig({ cwd: dir, env: {} });
    expect(defaults.plugins.host_programs).toBe("allow");
    expect(defaults.tools.approval).toBe("untrusted");
    expect(defaults.sandbox.network).toEqual({ allow: [], allowed_private: [] });
    expect(defaults.mcp.sandbox).toEqual({ memory_mb: 1024, max_processes: 256 });
    expect(defaults.deprecations).toEqual([]);

    const file = write("plugins:\n  stdio_servers: deny\n");
    const old = loadConfig({ cwd: dir, env: {} });
    expect(old.plugins.host_programs).toBe("deny");
    expect(old.deprecations).toEqual([expect.stringContaining(`${file}: plugins.stdio_servers is deprecated: use plugins.host_programs`)]);
    expect(old.deprecations[0]).toContain("read as host_programs: deny");

    write("plugins:\n  stdio_servers: deny\n  host_programs: sandbox\n");
    const both = loadConfig({ cwd: dir, env: {} });
    expect(both.plugins.host_programs).toBe("sandbox");
    expect(both.deprecations[0]).toContain("stdio_servers is ignored");

    write("sandbox:\n  network:\n    allow: [api.github.com, '*.example.com:443']\n    allowed_private: [127.0.0.1, 10.0.0.0/8]\n");
    expect(loadConfig({ cwd: dir, env: {} }).sandbox.network.allow).toEqual(["api.github.com", "*.example.com:443"]);
    write("sandbox:\n  network:\n    allow: ['http://api.github.com/']\n");
    expect(() => loadConfig({ cwd: dir, env: {} })).toThrowError(/sandbox\.network\.allow\.0: must match pattern/);
  });

  it("reads the thread files and thread size keys with their defaults, and refuses a conversion worker too small to start", () => {
    write("files: {}\n");
    const config = loadConfig({ cwd: dir, env: {} });
    expect(config.files).toEqual({ max_file_mb: 50, max_files: 10, max_thread_mb: 500, conversion: { enabled: true, timeout_seconds: 60, memory_mb: 512, max_pages: 500, max_cells: 200000, max_output_mb: 8 } });
    expect([config.agent.threads.max_state_mb, config.agent.threads.history_max_mb]).toEqual([64, 16]);
    const file = write("files:\n  conversion:\n    memory_mb: 64\n");
    expect(() => loadConfig({ cwd: dir, env: {} })).toThrowError(`${file}: files.conversion.memory_mb: must be >= 128`);
  });

  it("fails when THINKTANK_CONFIG points nowhere", () => {
    expect(() => loadConfig({ cwd: dir, env: { THINKTANK_CONFIG: "missing.yaml" } })).toThrowError(/config file not found/);
  });
});
