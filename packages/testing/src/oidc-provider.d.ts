// oidc-provider ships no types; openid-provider.ts describes the little of it that it uses.
declare module "oidc-provider";
