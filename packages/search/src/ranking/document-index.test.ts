import { isThinktankError } from "@thinktank/core";
import { describe, expect, it } from "vitest";
import { DocumentIndex, type DocumentIndexWeights } from "./document-index.js";

const weights: DocumentIndexWeights = {
  fields: { name: 3, description: 1 },
  lengthNormalization: { name: 0.5, description: 0.75 },
  k1: 1.2,
  coverage: 0.75,
  fullMatch: 0.2,
  nameMatch: 1,
  deprecated: 0.5,
  synonym: 0.6,
  quoted: 0.4,
  context: 0.5,
  entity: 0.5,
};
const options = { fields: ["name", "description"], weights };
const documents = [
  { id: "a:pdf-tools", fields: { name: "pdf-tools", description: "Fill forms and merge PDF files." } },
  { id: "a:slideDeck", fields: { name: "slideDeck", description: "Build a presentation with slides." } },
  { id: "b:old-slides", fields: { name: "old-slides", description: "Build a presentation with slides." }, deprecated: true },
  { id: "b:mail", fields: { name: "mail", description: "Write an email to a customer." } },
];

describe("DocumentIndex", () => {
  const index = new DocumentIndex(documents, options);

  it("ranks by weighted fields, splits identifiers and stems", () => {
    expect(index.size).toBe(4);
    expect(index.search("merge two pdfs")[0]?.id).toBe("a:pdf-tools");
    expect(index.search("slide deck")[0]?.id).toBe("a:slideDeck");
  });

  it("finds a document through a synonym, and scores a deprecated one down", () => {
    expect(index.search("draft a mail message")[0]?.id).toBe("b:mail");
    expect(index.search("e-mail the client")[0]?.id).toBe("b:mail");
    const [first, second] = index.search("presentation");
    expect([first?.id, second?.id]).toEqual(["a:slideDeck", "b:old-slides"]);
    expect(second?.score).toBeLessThan(first?.score ?? 0);
  });

  it("orders equal scores by id and answers nothing for filler words", () => {
    const twins = new DocumentIndex([{ id: "z", fields: { name: "report" } }, { id: "y", fields: { name: "report" } }], options);
    expect(twins.search("report").map((hit) => hit.id)).toEqual(["y", "z"]);
    expect(index.search("can you please do it")).toEqual([]);
  });

  it("refuses duplicate ids and a name field it does not know", () => {
    const refused = (build: () => unknown) => {
      try {
        build();
      } catch (error) {
        return isThinktankError(error) ? error.code : "other";
      }
      return "built";
    };
    expect(refused(() => new DocumentIndex([documents[0]!, documents[0]!], options))).toBe("VALIDATION_FAILED");
    expect(refused(() => new DocumentIndex(documents, { ...options, nameField: "title" }))).toBe("VALIDATION_FAILED");
  });

  it("corrects a typo and reads related words only when their weights are set", () => {
    const docs = [
      { id: "docker", fields: { name: "dockerfile-slim", description: "Make container images smaller." } },
      { id: "slides", fields: { name: "speaker-notes", description: "Notes for each slide of a talk." } },
    ];
    const related = [["presentation", "pptx", "slide"]];
    const plain = new DocumentIndex(docs, { ...options, related });
    expect(plain.search("my dokerfile")).toEqual([]);
    expect(plain.search("notes for my pptx")[0]?.id).toBe("slides");
    expect(plain.search("what to say about my pptx")).toEqual([]);
    const tolerant = new DocumentIndex(docs, { ...options, related, weights: { ...weights, spelling: 0.8, related: 0.5 } });
    expect(tolerant.search("my dokerfile")[0]?.id).toBe("docker");
    expect(tolerant.search("what to say about my pptx")[0]?.id).toBe("slides");
  });
});

