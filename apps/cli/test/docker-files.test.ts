// What can be checked of docker-compose.yml, the Dockerfile and .dockerignore without a Docker
// engine (docs/docker.md: what this covers, and the manual `docker compose up` it does not replace).
// The compose rules run on the file as YAML; `npm run check:compose` runs them again on `docker
// compose config`'s own reading of it, where the docker CLI has its compose plugin.
import fs from "node:fs";
import path from "node:path";
import { loadConfig } from "@thinktank/core";
import { repositoryRoot } from "@thinktank/testing";
import { load as parseYaml, YAML11_SCHEMA } from "js-yaml";
import { describe, expect, it } from "vitest";
import { composeProblems, type ComposeFile } from "./support/compose-rules.js";
import { devImportsAtRunTime } from "./support/runtime-imports.js";

const root = repositoryRoot();
const read = (file: string): string => fs.readFileSync(path.join(root, file), "utf8");
// YAML 1.1: compose files merge anchors with `<<`.
const composeYaml = parseYaml(read("docker-compose.yml"), { schema: YAML11_SCHEMA }) as ComposeFile;

describe("docker-compose.yml", () => {
  it("builds one image in one service, runs every Thinktank service on its tag after it, and gives every agent service the three security options", () => {
    expect(composeProblems(composeYaml, { profiles: ["scale"] })).toEqual([]);
  });

  it("the rules catch what the issue found: a missing systempaths, a second build, a healthcheck on another port or route, a pull of the local tag", () => {
    const broken = structuredClone(composeYaml);
    const services = broken.services;
    services["agent-b"] = { ...services["agent-b"], security_opt: ["seccomp:unconfined", "apparmor:unconfined"] };
    services.gateway = { ...services.gateway, build: "." };
    const agentCheck = services.agent?.healthcheck?.test ?? [];
    services.agent = { ...services.agent, healthcheck: { test: agentCheck.map((part) => part.replace("2024/healthz", "2024/health")) } };
    services["gateway-a"] = { ...services["gateway-a"], healthcheck: { test: (services["gateway-a"]?.healthcheck?.test ?? []).map((part) => part.replace(":8001/", ":2024/")) } };
    // Without pull_policy: never, `up` asks a registry for the local tag before the image service builds it.
    const { pull_policy: _gatewayB, ...gatewayB } = services["gateway-b"] ?? {};
    services["gateway-b"] = gatewayB;
    const { pull_policy: _image, ...image } = services.image ?? {};
    services.image = image;
    expect(composeProblems(broken, { profiles: ["scale"] })).toEqual([
      "agent-b: security_opt lacks systempaths=unconfined",
      "agent: healthcheck asks /health, not /healthz",
      "gateway-a: healthcheck asks port 2024, but the service listens on 8001",
      "gateway-b: pull_policy is not never (Compose would ask a registry for thinktank:local, which only the `image` service makes)",
      "gateway: builds an image of its own (only `image` builds thinktank:local)",
      "image: pull_policy is not never (Compose would ask a registry for thinktank:local before building it)",
    ]);
  });
});

describe("Dockerfile", () => {
  const dockerfile = read("Dockerfile");
  const stages = [...dockerfile.matchAll(/^FROM\s+(\S+)\s+AS\s+(\S+)\s*$/gim)].map((match) => ({ from: match[1] ?? "", name: match[2] ?? "" }));
  const stageText = (name: string): string => {
    const start = dockerfile.search(new RegExp(`^FROM\\s+\\S+\\s+AS\\s+${name}\\s*$`, "im"));
    const next = dockerfile.slice(start + 1).search(/^FROM\s/m);
    return next < 0 ? dockerfile.slice(start) : dockerfile.slice(start, start + 1 + next);
  };

  it("has no `# syntax=` line (an offline BuildKit cannot fetch that frontend image)", () => {
    expect(dockerfile).not.toMatch(/^#\s*syntax\s*=/im);
  });

  it("builds in stages base, manifests, deps, build, production, runtime, each from one before it", () => {
    expect(stages.map((stage) => stage.name)).toEqual(["base", "manifests", "deps", "build", "production", "runtime"]);
    stages.forEach((stage, index) => {
      if (index > 0) expect(stages.slice(0, index).map((earlier) => earlier.name), `${stage.name} is FROM ${stage.from}`).toContain(stage.from);
      for (const match of stageText(stage.name).matchAll(/COPY\s+--from=(\S+)/g)) expect(stages.slice(0, index).map((earlier) => earlier.name), `${stage.name} copies from ${match[1]}`).toContain(match[1]);
    });
  });

  it("ships no devDependencies: the production stage prunes them and the runtime copies only from it", () => {
    expect(stageText("production")).toMatch(/^RUN npm prune --omit=dev\b/m);
    expect([...stageText("runtime").matchAll(/COPY\s+--from=(\S+)/g)].map((match) => match[1])).toEqual(["production"]);
    expect(stageText("runtime")).toMatch(/^USER node$/m);
  });

  it("checks health on the gateway's /healthz at GATEWAY_PORT", () => {
    expect(stageText("runtime")).toMatch(/^HEALTHCHECK [\s\S]*'http:\/\/127\.0\.0\.1:' \+ \(process\.env\.GATEWAY_PORT \|\| 8001\) \+ '\/healthz'/m);
  });
});

describe(".dockerignore", () => {
  const patterns = read(".dockerignore")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"));

  /** Whether the build context leaves `file` out: docker's rules, the last matching pattern wins, a folder's pattern covers what is under it. */
  const ignored = (file: string): boolean => {
    let result = false;
    for (const raw of patterns) {
      const negated = raw.startsWith("!");
      const pattern = (negated ? raw.slice(1) : raw).replace(/^\/+/, "").replace(/\/+$/, "");
      // `**/` is any number of folders, none included; `*` and `?` stay within one name.
      const source = pattern
        .split("/")
        .map((part, index, parts) => (part === "**" ? (index === parts.length - 1 ? ".*" : "(?:.*/)?") : `${part.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*").replace(/\?/g, "[^/]")}${index === parts.length - 1 ? "" : "/"}`))
        .join("");
      if (new RegExp(`^${source}(/.*)?$`).test(file)) result = !negated;
    }
    return result;
  };

  it("leaves out every path .gitignore lists as written by a running Thinktank, and the data folders of the shipped config", () => {
    const gitignore = read(".gitignore");
    const block = gitignore.slice(gitignore.indexOf("# What a running Thinktank writes"));
    const written = block
      .split("\n")
      .filter((line) => line.trim() && !line.startsWith("#") && !line.startsWith("!"))
      .map((line) => line.trim().replace(/^\//, "").replace(/\/$/, "").replace(/\*$/, "example"));
    expect(written.length).toBeGreaterThan(8);
    for (const file of written) expect(ignored(file), file).toBe(true);
    const config = loadConfig({ env: { THINKTANK_CONFIG: path.join(root, "config.yaml") } });
    for (const folder of [config.data_dir, config.tools.scripts_dir, config.extensions_config, `${config.extensions_config}.lock`]) expect(ignored(path.relative(root, folder)), folder).toBe(true);
  });

  it("keeps what the build and the image need", () => {
    for (const file of ["package.json", "package-lock.json", "tsconfig.json", "tsconfig.base.json", "config.yaml", "apps/cli/bin/thinktank.js", "packages/core/src/index.ts", "skills/public", "skills/custom/.gitkeep", "plugins/installed/.gitkeep", "deploy/scale/config.yaml"]) {
      expect(ignored(file), file).toBe(false);
    }
    for (const file of [".git/HEAD", "node_modules/typescript", "packages/core/node_modules/x", "packages/core/dist/src/index.js", ".thinktank/threads.sqlite", ".env"]) expect(ignored(file), file).toBe(true);
  });
});

describe("the pruned image", () => {
  it("imports no devDependency at run time (what `npm prune --omit=dev` removes, per package-lock.json)", () => {
    expect(devImportsAtRunTime(root)).toEqual([]);
  });
});
