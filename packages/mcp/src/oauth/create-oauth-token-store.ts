import path from "node:path";
import type { Config } from "@thinktank/core";
import { OAuthTokenStore } from "./oauth-token-store.js";

/** The token store every process of one installation shares: `<data_dir>/oauth`, keyed by THINKTANK_SECRET_KEY or its key file. */
export function createOAuthTokenStore(config: Pick<Config, "data_dir" | "env">): OAuthTokenStore {
  return new OAuthTokenStore({ dir: path.join(config.data_dir, "oauth"), secret: config.env.THINKTANK_SECRET_KEY });
}
