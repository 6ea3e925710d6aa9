/**
 * The session's code with both MCP SDKs (ServerConnection, and the classifier of the SDKs' errors,
 * which exist only once the SDKs are loaded), loaded on demand; the module cache keeps it. A process
 * that configures no server that can connect (the gateway, `thinktank skills list`, an agent
 * without MCP servers) never loads the SDKs, a large part of its start-up.
 */
export async function loadSessionModules() {
  const [{ ServerConnection }, { classifyFailure, isRequestTimeout }] = await Promise.all([import("./server-connection.js"), import("./classify-failure.js")]);
  return { ServerConnection, classifyFailure, isRequestTimeout };
}
