import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { expect, it } from "vitest";
import { legacyProtocolVersion } from "./protocol-versions.js";

it("the initialize era's version is the v1 SDK's newest (written out so naming it loads no SDK)", () => {
  expect(legacyProtocolVersion).toBe(LATEST_PROTOCOL_VERSION);
});
