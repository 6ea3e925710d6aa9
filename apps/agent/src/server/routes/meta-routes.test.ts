import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { healthzFallback, registerMetaRoutes } from "./meta-routes.js";

describe("GET /healthz", () => {
  it("says bubblewrap was not used without the reason, which quotes host paths and the PATH", async () => {
    const app = Fastify();
    const hostPath = "/usr/local/sbin:/usr/local/bin:/opt/secret-tools/bin";
    registerMetaRoutes(app, {
      sandbox: async () => ({
        configured: "auto",
        backend: "deno",
        isolated: true,
        isolation: "Deno permissions",
        fallback: `bubblewrap is not usable here: The bubblewrap sandbox needs \`bwrap\`, which was not found on ${hostPath}.`,
        memory: { mode: "per-process", description: "per process (RLIMIT_DATA); no cgroup: cgroups unreadable: EACCES /sys/fs/cgroup/memory/thinktank" },
      }),
      hostIsolation: () => ({ isolation: "none", reason: "no way to confine host programs here", detail: `bubblewrap: bwrap not found on ${hostPath}` }),
    });
    const answer = await app.inject({ method: "GET", url: "/healthz" });
    expect(answer.json()).toEqual({
      status: "ok",
      sandbox: { backend: "deno", isolated: true, isolation: "Deno permissions", fallback: healthzFallback, memory: { mode: "per-process" } },
      host_programs: { isolation: "none", reason: "no way to confine host programs here" },
    });
    expect(answer.body).not.toContain("/opt/secret-tools");
    expect(answer.body).not.toContain("/sys/fs/cgroup");
    await app.close();
  });

  it("answers status warning with the sandbox's warning when bubblewrap was expected but refused, still 200", async () => {
    const app = Fastify();
    const warning = "bubblewrap is installed but cannot start a sandbox here (bwrap: Can't mount proc on /newroot/proc: Operation not permitted), so execute_code and bash run on the weaker deno backend";
    registerMetaRoutes(app, {
      sandbox: async () => ({
        configured: "auto",
        backend: "deno",
        isolated: true,
        isolation: "Deno permissions",
        fallback: "bubblewrap is not usable here: bubblewrap could not create the sandbox (bwrap: Can't mount proc on /newroot/proc: Operation not permitted). Fix: ...",
        warning,
        memory: { mode: "per-process", description: "per process" },
      }),
      hostIsolation: () => ({ isolation: "none", reason: "no way to confine host programs here" }),
    });
    const answer = await app.inject({ method: "GET", url: "/healthz" });
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toMatchObject({ status: "warning", sandbox: { backend: "deno", fallback: healthzFallback, warning } });
    await app.close();
  });
});
