import type { RoutePlugin } from "../route-plugin.js";

/**
 * GET /healthz: the process is up and serving (no dependency is probed, so it stays cheap), and how
 * programs it starts on the host are confined (`host_programs`, found once at start-up; its reason
 * names no host path, since the route needs no key).
 */
const healthRoutes: RoutePlugin = async (app, { deps }) => {
  app.get(
    "/healthz",
    {
      config: { access: "public" },
      schema: {
        summary: "Liveness check",
        tags: ["meta"],
        response: {
          200: {
            type: "object",
            required: ["status"],
            properties: {
              status: { type: "string", enum: ["ok"] },
              host_programs: {
                type: "object",
                description: "How git fetches and script tools started on this host are confined: in a pid namespace of their own, as a dedicated user, or not at all (none), and why.",
                required: ["isolation", "reason"],
                properties: { isolation: { type: "string", enum: ["pid-namespace", "dedicated-user", "none"] }, reason: { type: "string" } },
              },
            },
          },
        },
      },
    },
    async () => {
      const info = deps.hostConfinement?.info;
      return { status: "ok" as const, ...(info ? { host_programs: { isolation: info.isolation, reason: info.reason } } : {}) };
    },
  );
};

export default healthRoutes;
