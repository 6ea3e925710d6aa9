import { describe, expect, it } from "vitest";
import { splitDescription, summarizeDescription } from "./summarize-description.js";

describe("splitDescription", () => {
  it("takes the first sentence as the lead", () => {
    expect(splitDescription("Create a new issue. Use update_issue to change one.")).toEqual({ lead: "Create a new issue.", body: "Use update_issue to change one." });
  });

  it("does not end a sentence at e.g. or a one-letter initial", () => {
    expect(splitDescription("Click an element (e.g. a button) on the page. Then wait.").lead).toBe("Click an element (e.g. a button) on the page.");
  });

  it("ends the lead at a line break and keeps a description without a full stop whole", () => {
    expect(splitDescription("🎯 Purpose: list objects\n1. Retrieves things").lead).toBe("🎯 Purpose: list objects");
    expect(splitDescription("Get the current time")).toEqual({ lead: "Get the current time", body: "" });
  });
});

describe("summarizeDescription", () => {
  it("collapses whitespace and cuts long sentences on a word with an ellipsis", () => {
    const long = `Retrieve ${"very ".repeat(80)}long things.`;
    const summary = summarizeDescription(long);
    expect(summary.length).toBeLessThanOrEqual(200);
    expect(summary.endsWith("very…")).toBe(true);
    expect(summarizeDescription("  Send   an\temail.  More text.")).toBe("Send an email.");
  });
});
