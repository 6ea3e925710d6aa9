import { createOAuthTokenStore, McpManager } from "@thinktank/mcp";
import { startClientMetadataDocumentServer, startOAuthTestServer } from "@thinktank/mcp/testing";
import type { ClientMetadataDocumentServer, OAuthTestServer, OAuthTestServerOptions } from "@thinktank/mcp/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createTestGateway } from "./test-gateway.js";
import type { TestGateway } from "./test-gateway.js";

// Client registration by a client ID metadata document (mcp.oauth.client_metadata_url), through
// the gateway's routes, against a real authorization server that fetches the document over https.
let server: OAuthTestServer | undefined;
let documents: ClientMetadataDocumentServer | undefined;
let gateway: TestGateway | undefined;
let manager: McpManager | undefined;

afterEach(async () => {
  await manager?.close();
  await gateway?.close();
  await server?.close();
  await documents?.close();
  manager = gateway = server = documents = undefined;
});

async function start(options: OAuthTestServerOptions, metadataUrl?: string): Promise<{ server: OAuthTestServer; gateway: TestGateway; base: string }> {
  server = await startOAuthTestServer(options);
  const configYaml = metadataUrl ? `mcp:\n  oauth:\n    client_metadata_url: ${metadataUrl}\n` : undefined;
  gateway = await createTestGateway({ extensions: { mcpServers: { crm: { type: "http", url: server.mcpUrl } }, skills: {}, plugins: {}, tools: {} }, ...(configYaml ? { configYaml } : {}) });
  const base = await gateway.app.listen({ host: "127.0.0.1", port: 0 });
  return { server, gateway, base };
}

async function startSignIn(base: string): Promise<Response> {
  return fetch(`${base}/api/mcp/servers/crm/auth`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
}

describe("client ID metadata documents", () => {
  it("signs in with the document's URL as client_id: no registration request, redirect URI checked against the document", async () => {
    documents = await startClientMetadataDocumentServer();
    const { server, gateway, base } = await start({ clientMetadataDocuments: { ca: documents.ca } }, documents.url);
    const callbackUrl = `${base}/api/mcp/oauth/callback`;

    // A document that does not list the gateway's callback: the authorization server refuses the request.
    documents.serve({ client_id: documents.url, client_name: "Thinktank", redirect_uris: ["http://127.0.0.1:1/elsewhere"], token_endpoint_auth_method: "none" });
    const refused = ((await (await startSignIn(base)).json()) as { authorization_url: string }).authorization_url;
    expect(new URL(refused).searchParams.get("client_id")).toBe(documents.url);
    await expect(server.approve(refused)).rejects.toThrow(/Unregistered redirect_uri/);

    documents.serve({ client_id: documents.url, client_name: "Thinktank", redirect_uris: [callbackUrl], token_endpoint_auth_method: "none" });
    const authorizationUrl = ((await (await startSignIn(base)).json()) as { authorization_url: string }).authorization_url;
    const page = await fetch(await server.approve(authorizationUrl));
    expect([page.status, await page.text()]).toEqual([200, expect.stringContaining("Connected to <strong>crm</strong>")]);
    expect(await (await fetch(`${base}/api/mcp/servers/crm/auth`)).json()).toMatchObject({ signed_in: true, refreshable: true });

    manager = new McpManager({ mcp: { ...gateway.config.mcp, retries: 0 }, env: {}, oauthStore: createOAuthTokenStore(gateway.config) }, { crm: { type: "http", url: server.mcpUrl } });
    expect((await manager.callTool("crm", "whoami", {})).structuredContent).toEqual({ client_id: documents.url, scopes: ["mcp"] });
    // The stored client is the document's URL: a refresh (after the access token is refused) keeps working.
    server.expireAccessTokens();
    expect((await manager.callTool("crm", "add", { a: 2, b: 3 })).structuredContent).toEqual({ sum: 5 });
    expect(server.stats()).toMatchObject({ registrations: 0, registrationRequests: 0, refreshes: 1 });
    expect(server.stats().metadataDocumentFetches).toBeGreaterThanOrEqual(3);
    expect(documents.fetches()).toBe(server.stats().metadataDocumentFetches);
  });

  it("falls back to dynamic registration where the authorization server takes no documents", async () => {
    documents = await startClientMetadataDocumentServer();
    const { server, base } = await start({}, documents.url);
    const authorizationUrl = ((await (await startSignIn(base)).json()) as { authorization_url: string }).authorization_url;
    expect(new URL(authorizationUrl).searchParams.get("client_id")).not.toBe(documents.url);
    expect((await fetch(await server.approve(authorizationUrl))).status).toBe(200);
    expect(server.stats()).toMatchObject({ registrations: 1, metadataDocumentFetches: 0 });
    expect(documents.fetches()).toBe(0);
  });

  it("an authorization server with neither registration nor documents, and no client configured: a 409 saying what to set", async () => {
    const { server, base } = await start({ dynamicRegistration: false });
    const response = await startSignIn(base);
    const body = (await response.json()) as { code: string; message: string };
    expect([response.status, body.code]).toEqual([409, "OAUTH_NOT_APPLICABLE"]);
    expect(body.message).toContain("oauth.client_id");
    expect(server.stats().registrationRequests).toBe(0);
    expect(await (await fetch(`${base}/api/mcp/servers/crm/auth`)).json()).toMatchObject({ signed_in: false });
    expect(body.message).not.toContain("client_metadata_url");
  });

  it("an authorization server that takes documents but no registration, and no document URL configured: the 409 names mcp.oauth.client_metadata_url", async () => {
    const { base } = await start({ dynamicRegistration: false, clientMetadataDocuments: true });
    const response = await startSignIn(base);
    expect([response.status, await response.json()]).toEqual([409, expect.objectContaining({ code: "OAUTH_NOT_APPLICABLE", message: expect.stringContaining("or mcp.oauth.client_metadata_url") })]);
  });
});
