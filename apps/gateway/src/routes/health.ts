import type { RoutePlugin } from "../route-plugin.js";

/** GET /healthz: the process is up and serving (no dependency is probed, so it stays cheap). */
const healthRoutes: RoutePlugin = async (app) => {
  app.get(
    "/healthz",
    {
      schema: {
        summary: "Liveness check",
        tags: ["meta"],
        response: { 200: { type: "object", required: ["status"], properties: { status: { type: "string", enum: ["ok"] } } } },
      },
    },
    async () => ({ status: "ok" as const }),
  );
};

export default healthRoutes;
