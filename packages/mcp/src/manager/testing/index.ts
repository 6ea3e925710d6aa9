// Test doubles for other packages' tests (`@thinktank/mcp/testing`): a real stdio MCP server with
// awkward behaviours, the installed reference servers, and small waiting helpers.
export { testServerPath, testServerEntry } from "./test-server-entry.js";
export { referenceServerScript, referenceStdioEntry, startEverythingOverHttp } from "./reference-servers.js";
export type { ReferenceServer, RunningHttpServer } from "./reference-servers.js";
export { waitFor, processAlive } from "./wait-for.js";
export { startSilentTcpServer } from "./silent-tcp-server.js";
export type { SilentTcpServer } from "./silent-tcp-server.js";
export { startOAuthTestServer } from "./oauth-test-server.js";
export type { OAuthTestServer, OAuthTestServerOptions, OAuthTestServerStats, PreRegisteredClient } from "./oauth-test-server.js";
export { startClientMetadataDocumentServer } from "./client-metadata-document-server.js";
export type { ClientMetadataDocumentServer } from "./client-metadata-document-server.js";
export { eraStdioEntry, eraTestServerPath, startEraServerOverHttp } from "./era-test-server.js";
export type { EraServerKind, EraServerOptions, RunningEraServer } from "./era-test-server.js";
