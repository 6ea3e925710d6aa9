import { describe, expect, it } from "vitest";
import { expandDeep, expandString, referencedVariables } from "./expand-variables.js";

describe("expandString", () => {
  it("expands braced, bare and defaulted references", () => {
    const env = { HOME: "/h", TOKEN: "t0k" };
    expect(expandString("${HOME}/x $TOKEN ${PORT:-8080}", env)).toEqual({ value: "/h/x t0k 8080", missing: [] });
  });

  it("leaves an unset reference in place and reports it once", () => {
    expect(expandString("Bearer ${API_KEY} ${API_KEY}", {})).toEqual({ value: "Bearer ${API_KEY} ${API_KEY}", missing: ["API_KEY"] });
  });

  it("uses the default when a variable is empty", () => {
    expect(expandString("${X:-fallback}", { X: "" }).value).toBe("fallback");
  });

  it("does not touch a dollar that is not a reference", () => {
    expect(expandString("costs $1.2M or $ 5", {})).toEqual({ value: "costs $1.2M or $ 5", missing: [] });
  });
});

describe("expandDeep", () => {
  it("walks arrays and objects but not keys", () => {
    const result = expandDeep({ args: ["${ROOT}/server.js"], env: { KEY: "$SECRET" }, port: 3 }, { ROOT: "/p" });
    expect(result.value).toEqual({ args: ["/p/server.js"], env: { KEY: "$SECRET" }, port: 3 });
    expect(result.missing).toEqual(["SECRET"]);
  });
});

describe("referencedVariables", () => {
  it("lists each name once", () => {
    expect(referencedVariables("${A} $B ${A:-x}")).toEqual(["A", "B"]);
  });
});
