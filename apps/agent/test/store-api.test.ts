import crypto from "node:crypto";
import type { Client } from "@langchain/langgraph-sdk";
import { describe, expect, it } from "vitest";
import { agentBackends } from "./support/agent-backends.js";
import { useSuiteAgent } from "./support/suite-agent.js";

for (const backend of agentBackends()) {
  describe(`the store API over the SDK (${backend.name})`, { ...backend.testOptions, timeout: 60_000 }, () => {
    const suite = useSuiteAgent(backend.fixture);
    // The Postgres database outlives test runs: each run works under a root label of its own.
    const root = `run-${crypto.randomUUID()}`;

    const raw = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${suite.agent.url}${path}`, { method, headers: body === undefined ? {} : { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await response.text();
      return { status: response.status, body: text ? (JSON.parse(text) as { code?: string; message?: string }) : undefined };
    };

    it("puts, gets, replaces and deletes items, and says it has a store", async () => {
      expect(((await (await fetch(`${suite.agent.url}/info`)).json()) as { flags: { store: boolean } }).flags.store).toBe(true);
      const namespace = [root, "memories", "user_1"];
      await suite.client.store.putItem(namespace, "colour", { favourite: "teal", since: 2020 });
      // On the wire (and so in what the SDK returns) created_at / updated_at; the SDK adds camelCase copies.
      const item = (await suite.client.store.getItem(namespace, "colour")) as (Record<string, unknown> & { createdAt: unknown }) | null;
      expect(item).toMatchObject({ namespace, key: "colour", value: { favourite: "teal", since: 2020 } });
      expect(Date.parse(item?.created_at as string)).not.toBeNaN();
      expect(item?.createdAt).toBe(item?.created_at);

      await suite.client.store.putItem(namespace, "colour", { favourite: "amber" });
      const replaced = await suite.client.store.getItem(namespace, "colour");
      expect(replaced).toMatchObject({ value: { favourite: "amber" }, created_at: item?.created_at });

      expect(await suite.client.store.getItem(namespace, "nothing")).toBeNull();
      await suite.client.store.deleteItem(namespace, "colour");
      expect(await suite.client.store.getItem(namespace, "colour")).toBeNull();
      await suite.client.store.deleteItem(namespace, "colour");
    });

    it("keeps labels exactly and matches prefixes label by label (':', '_', '%' and near names)", async () => {
      const awkward = [root, "a:b", "user_42", "100%"];
      await suite.client.store.putItem(awkward, "k", { n: 1 });
      await suite.client.store.putItem([root, "ab"], "k", { n: 2 });
      await suite.client.store.putItem([root, "a"], "k", { n: 3 });
      expect((await suite.client.store.getItem(awkward, "k"))?.namespace).toEqual(awkward);
      expect((await suite.client.store.searchItems([root, "a"])).items.map((i) => i.value)).toEqual([{ n: 3 }]);
      expect((await suite.client.store.searchItems([root, "a:b"])).items.map((i) => i.namespace)).toEqual([awkward]);
      expect((await suite.client.store.searchItems([root, "_"])).items).toEqual([]);
    });

    it("searches by namespace prefix, filter, text query and page, newest first", async () => {
      const notes = [root, "notes"];
      const put = [
        ["n1", { topic: "pets", score: 3, tags: ["cat"], author: { name: "Ann", team: "x" } }],
        ["n2", { topic: "work", score: 7, tags: ["deadline", "q3"] }],
        ["n3", { topic: "pets", score: 9, tags: ["dog"], body: "Walked the DOG at noon" }],
      ] as const;
      for (const [key, value] of put) {
        await suite.client.store.putItem([...notes, key === "n3" ? "deep" : "flat"], key, { ...value });
        // Newest first: the next put gets a later millisecond than this one (same clock, the server's answer came first).
        for (const answered = Date.now(); Date.now() === answered; );
      }
      const keys = async (options: Parameters<Client["store"]["searchItems"]>[1]) => (await suite.client.store.searchItems(notes, options)).items.map((i) => i.key);

      expect(await keys({})).toEqual(["n3", "n2", "n1"]);
      expect(await keys({ limit: 1, offset: 1 })).toEqual(["n2"]);
      expect(await keys({ filter: { topic: "pets" } })).toEqual(["n3", "n1"]);
      expect(await keys({ filter: { author: { team: "x", name: "Ann" } } })).toEqual(["n1"]);
      expect(await keys({ filter: { tags: ["deadline", "q3"] } })).toEqual(["n2"]);
      expect(await keys({ filter: { score: { $gt: 3, $lte: 9 } } })).toEqual(["n3", "n2"]);
      expect(await keys({ filter: { topic: { $in: ["work", "home"] } } })).toEqual(["n2"]);
      expect(await keys({ filter: { body: { $exists: false }, topic: { $ne: "work" } } })).toEqual(["n1"]);
      expect(await keys({ filter: { score: "3" } })).toEqual([]);
      expect(await keys({ query: "walked dog" })).toEqual(["n3"]);
      expect(await keys({ query: "pets", filter: { score: { $lt: 5 } } })).toEqual(["n1"]);
      expect((await suite.client.store.searchItems([...notes, "deep"])).items.map((i) => i.key)).toEqual(["n3"]);
    });

    it("lists namespaces by prefix, suffix, wildcard and depth", async () => {
      const base = [root, "tree"];
      for (const leaf of [["u1", "prefs"], ["u1", "notes"], ["u2", "prefs"], ["u2", "x", "prefs"]]) await suite.client.store.putItem([...base, ...leaf], "k", {});
      const list = (options: Parameters<Client["store"]["listNamespaces"]>[0]) => suite.client.store.listNamespaces(options).then((answer) => answer.namespaces);
      expect(await list({ prefix: base })).toEqual([
        [...base, "u1", "notes"],
        [...base, "u1", "prefs"],
        [...base, "u2", "prefs"],
        [...base, "u2", "x", "prefs"],
      ]);
      expect(await list({ prefix: base, suffix: ["prefs"], maxDepth: 4 })).toEqual([
        [...base, "u1", "prefs"],
        [...base, "u2", "prefs"],
        [...base, "u2", "x"],
      ]);
      expect(await list({ prefix: [root, "*", "u2"] })).toEqual([
        [...base, "u2", "prefs"],
        [...base, "u2", "x", "prefs"],
      ]);
      expect(await list({ prefix: base, maxDepth: 3, limit: 1, offset: 1 })).toEqual([[...base, "u2"]]);
    });

    it("refuses malformed namespaces, keys, values, filters and TTLs with 400 VALIDATION_FAILED, storing nothing", async () => {
      const refused = [
        await raw("PUT", "/store/items", { namespace: [root, "a.b"], key: "k", value: {} }),
        await raw("PUT", "/store/items", { namespace: [], key: "k", value: {} }),
        await raw("PUT", "/store/items", { namespace: [root, ""], key: "k", value: {} }),
        await raw("PUT", "/store/items", { namespace: [root], key: "", value: {} }),
        await raw("PUT", "/store/items", { namespace: [root], key: "k", value: [1] }),
        await raw("PUT", "/store/items", { namespace: [root], key: "k", value: {}, ttl: -1 }),
        await raw("GET", `/store/items?namespace=${root}.x%00y&key=k`),
        await raw("GET", `/store/items?namespace=&key=k`),
        await raw("POST", "/store/items/search", { namespace_prefix: [root], filter: { n: { $regex: "." } } }),
        await raw("POST", "/store/items/search", { namespace_prefix: [root], filter: { n: { $in: 3 } } }),
        await raw("POST", "/store/namespaces", { prefix: [root, "a.b"] }),
      ];
      expect(refused.map((answer) => [answer.status, answer.body?.code])).toEqual(refused.map(() => [400, "VALIDATION_FAILED"]));
      expect(refused[0]?.body?.message).toContain('"a.b"');
      expect(await suite.client.store.getItem([root], "k")).toBeNull();
    });

    it("lets an item with a TTL expire", async () => {
      // 0.02 minutes: the item lives 1.2 s after its last write or refreshing read (120 ms was gone
      // before the first read on a loaded machine).
      await suite.client.store.putItem([root, "ttl"], "brief", { n: 1 }, { ttl: 0.02 });
      await suite.client.store.putItem([root, "ttl"], "lasting", { n: 2 });
      expect(await suite.client.store.getItem([root, "ttl"], "brief", { refreshTtl: false })).not.toBeNull();
      const deadline = Date.now() + 20_000;
      while ((await suite.client.store.getItem([root, "ttl"], "brief", { refreshTtl: false })) !== null) {
        if (Date.now() > deadline) throw new Error("the item did not expire");
      }
      expect((await suite.client.store.searchItems([root, "ttl"])).items.map((i) => i.key)).toEqual(["lasting"]);
    });
  });
}
