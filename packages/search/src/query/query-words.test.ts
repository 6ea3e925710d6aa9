import { describe, expect, it } from "vitest";
import { findEntities } from "./query-entities.js";
import { queryWords } from "./query-words.js";

const marked = (query: string, flag: "quoted" | "context") => {
  const words = queryWords(query, findEntities(query));
  return words.words.filter((_, i) => words[flag][i]);
};

describe("queryWords", () => {
  it("keeps CamelCase and letter-digit words whole, with their parts", () => {
    const words = queryWords("open GitHub and R2");
    expect(words.words).toEqual(["open", "github", "and", "r2"]);
    expect(words.parts[1]).toEqual(["git", "hub"]);
    expect(words.offsets).toEqual([0, 5, 12, 16]);
  });

  it("marks quoted text, names after called/named/saying and what to remember as content", () => {
    expect(marked(`post "deploy finished" now`, "quoted")).toEqual(["deploy", "finished"]);
    expect(marked("create a repo called payments-api, then open it", "quoted")).toEqual(["payments", "api"]);
    expect(marked("remember that Alice works at Acme", "quoted")).toEqual(["alice", "works", "at", "acme"]);
  });

  it("marks typed values such as file names as content", () => {
    expect(marked("save the summary as summary.md", "quoted")).toEqual(["summary", "md"]);
  });

  it("marks a subordinate clause as context, but not a query that is only that clause", () => {
    expect(marked("confirm with the user before sending the email", "context")).toEqual(["before", "sending", "the", "email"]);
    expect(marked("before you drop the table, check with me first", "context")).toEqual(["before", "you", "drop", "the", "table"]);
    expect(marked("since when is the job running", "context")).toEqual([]);
  });
});
