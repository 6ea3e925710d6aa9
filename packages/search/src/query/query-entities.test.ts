import { describe, expect, it } from "vitest";
import { findEntities } from "./query-entities.js";

const found = (query: string) => findEntities(query).map((e) => ({ text: query.slice(e.start, e.end), kinds: e.kinds.join(" "), content: e.content }));

describe("findEntities", () => {
  it("recognises file names by their extension and says what kind of file", () => {
    expect(found("show the contents of notes.md")).toEqual([{ text: "notes.md", kinds: "file", content: true }]);
    expect(found("copy the sheet in budget.xlsx")[0]).toMatchObject({ text: "budget.xlsx", kinds: "excel spreadsheet workbook file" });
    expect(found("lint src/index.ts and *.test.ts").map((e) => e.text)).toEqual(["src/index.ts", "*.test.ts"]);
  });

  it("recognises paths, URLs, emails, coordinates, times, dates and channels", () => {
    expect(found("list /mnt/user-data/uploads")[0]).toMatchObject({ kinds: "path file directory" });
    expect(found("fetch https://example.com/a?b=1 please")[0]).toMatchObject({ text: "https://example.com/a?b=1", kinds: "url web page link" });
    expect(found("mail anna@example.com")[0]).toMatchObject({ kinds: "email address" });
    expect(found("the address at 52.52, 13.40")[0]).toMatchObject({ text: "52.52, 13.40", kinds: "coordinates latitude longitude" });
    expect(found("at 9am or 13:30").map((e) => e.text)).toEqual(["9am", "13:30"]);
    expect(found("how long ago was 2024-01-01")[0]).toMatchObject({ kinds: "date" });
    expect(found("post in #releases")[0]).toMatchObject({ text: "#releases", kinds: "channel" });
  });

  it("keeps a site's words as the task (monday.com names a product) and leaves Node.js alone", () => {
    expect(found("an item on the monday.com board")).toEqual([{ text: "monday.com", kinds: "website site domain", content: false }]);
    expect(found("upgrade Node.js and next.js, e.g. now")).toEqual([]);
  });

  it("finds nothing in plain words", () => {
    expect(findEntities("create an issue for the login bug")).toEqual([]);
  });
});
