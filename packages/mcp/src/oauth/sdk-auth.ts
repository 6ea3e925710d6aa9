/**
 * The MCP SDK's OAuth client and its errors, loaded on first use (the module cache keeps them): the
 * SDK's schemas are a large part of a process's start-up, and most processes never sign in, refresh
 * or revoke a token.
 */
export async function sdkAuth() {
  const [client, errors] = await Promise.all([import("@modelcontextprotocol/sdk/client/auth.js"), import("@modelcontextprotocol/sdk/server/auth/errors.js")]);
  return {
    auth: client.auth,
    refreshAuthorization: client.refreshAuthorization,
    selectResourceURL: client.selectResourceURL,
    selectClientAuthMethod: client.selectClientAuthMethod,
    extractWWWAuthenticateParams: client.extractWWWAuthenticateParams,
    OAuthError: errors.OAuthError,
    ServerError: errors.ServerError,
  };
}
