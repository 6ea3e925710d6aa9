import fs from "node:fs";
import path from "node:path";
import { loadConfig } from "@thinktank/core";
import { repositoryRoot } from "@thinktank/testing";
import { load as parseYaml, YAML11_SCHEMA } from "js-yaml";
import { describe, expect, it } from "vitest";

/**
 * docker-compose.yml's `scale` profile, checked without a Docker daemon: the services it adds, the
 * config file they read (loaded with the real loader), and the nginx upstreams that front them.
 * `nginx -t` on deploy/scale/nginx.conf is a manual check (the upstream names resolve only in compose).
 */
interface Service {
  readonly profiles?: string[];
  readonly image?: string;
  readonly command?: string[];
  readonly ports?: string[];
  readonly volumes?: string[];
  readonly environment?: Record<string, string>;
  readonly depends_on?: Record<string, { condition: string }>;
}

const root = repositoryRoot();
// YAML 1.1: compose files merge anchors with `<<`.
const compose = parseYaml(fs.readFileSync(path.join(root, "docker-compose.yml"), "utf8"), { schema: YAML11_SCHEMA }) as { services: Record<string, Service> };
const services = compose.services;
const service = (name: string): Service => {
  const found = services[name];
  if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
};
const nginx = fs.readFileSync(path.join(root, "deploy/scale/nginx.conf"), "utf8");
const agents = ["agent-a", "agent-b"];
const gateways = ["gateway-a", "gateway-b"];

describe("docker-compose scale profile", () => {
  it("adds Postgres, Redis, two agents, two gateways and a proxy under profile scale, leaving the plain services as they were", () => {
    const scale = Object.entries(services).filter(([, entry]) => entry.profiles?.includes("scale")).map(([name]) => name);
    expect(scale.sort()).toEqual(["agent-a", "agent-b", "gateway-a", "gateway-b", "postgres", "proxy", "redis"]);
    expect(service("gateway").profiles).toBeUndefined();
    expect(service("agent").profiles).toBeUndefined();
    for (const name of agents) expect(service(name).command).toEqual(service("agent").command);
    for (const name of gateways) expect(service(name).command).toEqual(service("gateway").command);
    for (const name of [...agents, ...gateways]) expect(service(name).image).toBe(service("agent").image);
  });

  it("publishes the proxy on the ports clients use today, and starts it after the four are healthy", () => {
    expect(service("proxy").ports?.sort()).toEqual([...(service("agent").ports ?? []), ...(service("gateway").ports ?? [])].sort());
    expect(service("proxy").volumes).toContain("./deploy/scale/nginx.conf:/etc/nginx/nginx.conf:ro");
    for (const name of [...agents, ...gateways]) {
      expect(service("proxy").depends_on?.[name]?.condition).toBe("service_healthy");
      expect(service(name).ports).toBeUndefined();
    }
  });

  it("gives the four one THINKTANK_HOME and a config that keeps threads in the postgres service", () => {
    const homeMount = service("agent").volumes?.[0];
    expect(homeMount).toMatch(/:\/srv\/thinktank$/);
    for (const name of [...agents, ...gateways]) {
      const entry = service(name);
      expect(entry.volumes).toContain(homeMount);
      const configMount = entry.volumes?.find((volume) => volume.endsWith(`:${entry.environment?.THINKTANK_CONFIG}:ro`));
      expect(configMount, `${name} mounts the file THINKTANK_CONFIG names`).toBe("${THINKTANK_SCALE_CONFIG:-./deploy/scale/config.yaml}:/etc/thinktank/config.yaml:ro");
    }
    const config = loadConfig({ env: { THINKTANK_CONFIG: path.join(root, "deploy/scale/config.yaml") } });
    expect(config.agent.threads.backend).toBe("postgres");
    for (const folder of [config.data_dir, config.extensions_config, config.skills.path, config.plugins.path, config.tools.scripts_dir]) expect(folder.startsWith("/srv/thinktank/")).toBe(true);
    for (const name of agents) expect(service(name).environment?.[config.agent.streams.redis_url_env]).toBe("redis://redis:6379");
    // The gateways too: users and API keys live in the threads database (the run under an engine
    // found gateway-a and gateway-b restarting with CONFIG_INVALID without it).
    for (const name of [...agents, ...gateways]) {
      const environment = service(name).environment ?? {};
      expect(environment[config.agent.threads.postgres_url_env], name).toMatch(/^postgres:\/\/thinktank:.*@postgres:5432\/thinktank$/);
      expect(service(name).depends_on?.postgres?.condition, name).toBe("service_healthy");
    }
  });

  it("has nginx balance :2024 over the agents and :8001 over the gateways, unbuffered on HTTP/1.1 for SSE", () => {
    const upstream = (name: string): string[] => [...(new RegExp(`upstream ${name} \\{([^}]*)\\}`).exec(nginx)?.[1] ?? "").matchAll(/server (\S+)/g)].map((match) => match[1] ?? "");
    expect(upstream("agents")).toEqual(agents.map((name) => `${name}:2024`));
    expect(upstream("gateways")).toEqual(gateways.map((name) => `${name}:8001`));
    expect(nginx).toMatch(/listen 2024;\s*location \/ \{\s*proxy_pass http:\/\/agents;/);
    // /mcp sessions live in one agent: routed back to it by the name starting the session id.
    for (const name of agents) {
      expect(service(name).environment?.THINKTANK_REPLICA).toBe(name);
      const group = name.replace("-", "_");
      expect(upstream(group)).toEqual([`${name}:2024;`]);
      expect(nginx).toContain(`~^${name}\\. ${group};`);
    }
    expect(nginx).toMatch(/location \/mcp \{\s*proxy_pass http:\/\/\$mcp_agents;/);
    expect(nginx).toMatch(/listen 8001;\s*location \/ \{\s*proxy_pass http:\/\/gateways;/);
    for (const directive of ["proxy_http_version 1.1;", "proxy_buffering off;", 'proxy_set_header Connection "";', "proxy_read_timeout 3600s;"]) expect(nginx).toContain(directive);
  });
});
