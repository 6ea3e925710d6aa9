import https from "node:https";
import type { AddressInfo } from "node:net";
import { loopbackTlsCert, loopbackTlsKey } from "./loopback-tls.js";

/**
 * A client ID metadata document (the MCP authorization spec's "Client ID Metadata Documents")
 * served over https on 127.0.0.1: `url` is the client_id. The certificate is self-signed; `ca`
 * is what an authorization server under test trusts to fetch it.
 */
export interface ClientMetadataDocumentServer {
  readonly url: string;
  readonly ca: string;
  /** Replaces the document (e.g. once the client's redirect URI is known). */
  serve(document: Readonly<Record<string, unknown>>): void;
  /** Requests for the document so far. */
  fetches(): number;
  close(): Promise<void>;
}

const documentPath = "/oauth/client-metadata.json";

export async function startClientMetadataDocumentServer(document: Readonly<Record<string, unknown>> = {}): Promise<ClientMetadataDocumentServer> {
  let current = document;
  let fetches = 0;
  const server = https.createServer({ cert: loopbackTlsCert, key: loopbackTlsKey }, (req, res) => {
    if (req.method !== "GET" || req.url !== documentPath) return void res.writeHead(404).end();
    fetches += 1;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(current));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}${documentPath}`;
  return {
    url,
    ca: loopbackTlsCert,
    serve: (next) => {
      current = next;
    },
    fetches: () => fetches,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
