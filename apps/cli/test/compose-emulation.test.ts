// The compose emulation `npm run check:docker` runs services with (apps/cli/scripts/docker): what it
// makes of docker-compose.yml without an engine: the `docker run` each service gets, the start
// order, the interpolation, and what it refuses.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { repositoryRoot } from "@thinktank/testing";
import { afterAll, describe, expect, it } from "vitest";
import { ComposeEmulation, interpolate } from "../scripts/docker/compose-emulation.js";

const root = repositoryRoot();
const work = fs.mkdtempSync(path.join(os.tmpdir(), "compose-emulation-"));
const override = path.join(work, "override.yml");
fs.writeFileSync(override, JSON.stringify({ services: Object.fromEntries(["image", "gateway", "agent", "postgres", "redis", "agent-a", "agent-b", "gateway-a", "gateway-b", "proxy"].map((name) => [name, { network_mode: "host" }])) }));
const env = { THINKTANK_API_KEY: "k".repeat(64), THINKTANK_HOME: "/srv/home", THINKTANK_UID: "1234", THINKTANK_GID: "1235" };
const compose = new ComposeEmulation({ projectDir: root, files: [path.join(root, "docker-compose.yml"), override], env });

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

describe("ComposeEmulation over docker-compose.yml", () => {
  it("starts the default services after what they depend on, and the scale profile's proxy last", () => {
    expect(compose.selection()).toEqual(["image", "gateway", "agent"]);
    const scale = compose.selection({ profiles: ["scale"], services: ["proxy"] });
    expect(scale.at(-1)).toBe("proxy");
    expect(scale.indexOf("postgres")).toBeLessThan(scale.indexOf("agent-a"));
    expect(scale.indexOf("image")).toBeLessThan(scale.indexOf("gateway-a"));
  });

  it("gives the agent the docker run Compose would: user, mount, environment, the three security options, healthcheck, never pulling the local tag", () => {
    const args = compose.runArgs("agent");
    const pairs = (flag: string): string[] => args.flatMap((arg, index) => (arg === flag ? [args[index + 1] as string] : []));
    expect(pairs("--user")).toEqual(["1234:1235"]);
    expect(pairs("-v")).toEqual(["/srv/home:/srv/thinktank"]);
    expect(pairs("--security-opt")).toEqual(["seccomp=unconfined", "apparmor=unconfined", "systempaths=unconfined"]);
    expect(pairs("--pull")).toEqual(["never"]);
    expect(pairs("--network")).toEqual(["host"]);
    expect(pairs("-e")).toContain(`THINKTANK_API_KEY=${env.THINKTANK_API_KEY}`);
    expect(pairs("-e")).toContain("THINKTANK_CONFIG=/srv/thinktank/config.yaml");
    expect(pairs("--health-cmd")[0]).toMatch(/^node -e 'fetch\('\\''http:\/\/127\.0\.0\.1:2024\/healthz'\\''\)/);
    expect(args.slice(-3)).toEqual(["thinktank:local", "node", "apps/agent/dist/src/start.js"]);
  });

  it("names volumes in the project (postgres-data) and reads relative paths from the project folder", () => {
    const postgres = compose.runArgs("postgres");
    expect(postgres).toContain("thinktank_postgres-data:/var/lib/postgresql/data");
    expect(postgres[postgres.indexOf("--pull") + 1]).toBe("missing");
    expect(compose.runArgs("proxy")).toContain(`${path.join(root, "deploy/scale/nginx.conf")}:/etc/nginx/nginx.conf:ro`);
  });

  it("refuses a service without host networking (no bridge networks here), and a missing required variable", () => {
    const plain = new ComposeEmulation({ projectDir: root, files: [path.join(root, "docker-compose.yml")], env });
    expect(() => plain.runArgs("agent")).toThrow(/network_mode: host/);
    expect(() => new ComposeEmulation({ projectDir: root, files: [path.join(root, "docker-compose.yml")], env: {} })).toThrow(/THINKTANK_API_KEY is missing a value: set THINKTANK_API_KEY/);
  });

  it("interpolates as Compose does", () => {
    const values = { SET: "x", EMPTY: "" };
    expect(interpolate(["${SET}", "${UNSET:-d}", "${EMPTY:-d}", "${EMPTY-d}", "$${SET}", "a${UNSET}b"], values)).toEqual(["x", "d", "d", "", "${SET}", "ab"]);
  });
});
