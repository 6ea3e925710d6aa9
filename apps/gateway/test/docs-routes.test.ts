// docs/gateway-api.md lists every route of the gateway's route table (a route added later fails
// here until the page names it), and names no route the gateway does not have.
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestGateway, type TestGateway } from "./test-gateway.js";

const page = fs.readFileSync(fileURLToPath(new URL("../../../docs/gateway-api.md", import.meta.url)), "utf8");
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await createTestGateway();
});
afterAll(async () => gateway?.close());

/** A route as the page writes it: `GET /api/memory/<path>` for `/api/memory/*`. */
const written = (method: string, url: string) => `${method} ${url.replace(/\/\*$/, "/<path>")}`;

describe("docs/gateway-api.md", () => {
  it("names every route of the gateway", () => {
    const routes = gateway.app.routeTable.filter((route) => !route.hidden && route.method !== "OPTIONS");
    expect(routes.length).toBeGreaterThan(40);
    const missing = routes.map((route) => written(route.method, route.url)).filter((route) => !new RegExp(`\`${route.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}[\`?]`).test(page));
    expect(missing).toEqual([]);
  });

  it("names no route the gateway does not have", () => {
    const known = new Set(gateway.app.routeTable.flatMap((route) => [written(route.method, route.url), `${route.method} ${route.url}`]));
    const named = [...page.matchAll(/`(GET|POST|PUT|PATCH|DELETE) (\/[^`?\s]*)/g)].map((match) => `${match[1]} ${match[2]}`);
    expect(named.filter((route) => !known.has(route))).toEqual([]);
  });
});
