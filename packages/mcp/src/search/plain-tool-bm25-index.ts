import { PlainBm25Index } from "@thinktank/search";
import type { CatalogServer } from "../catalog/catalog-types.js";

/**
 * The tool search baseline: the engine's plain BM25 over one text per tool (server name, tool
 * name, description). Ids join server and name with NUL, so equal scores go by server, then name.
 */
export class PlainToolBm25Index {
  readonly #index: PlainBm25Index;

  constructor(servers: readonly CatalogServer[]) {
    this.#index = new PlainBm25Index(servers.flatMap((server) => server.tools.map((tool) => ({ id: `${server.server}\u0000${tool.name}`, text: `${server.server} ${tool.name} ${tool.description ?? ""}` }))));
  }

  search(query: string, limit = 10): { server: string; name: string; score: number }[] {
    return this.#index.search(query, limit).map(({ id, score }) => {
      const [server = "", name = ""] = id.split("\u0000");
      return { server, name, score };
    });
  }
}
