// Issue 26 end to end: a client uploads a CSV, a PDF and a DOCX to a thread; the model learns of them
// from the upload note (the paths it reads come from the note), reads the PDF's and the DOCX's
// Markdown versions with read_file and the CSV with bash, writes /mnt/user-data/outputs/summary.md and
// presents it; the client finds the artifact in the thread state and downloads it (bytes equal,
// ETag 304, Range 206). Once over plain fetch, once with @langchain/langgraph-sdk (plus fetch for files).
import fs from "node:fs";
import path from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { makeDocx, makePdf } from "@thinktank/files/testing";
import { describe, expect, it } from "vitest";
import { useListeningAgentServer } from "./support/listening-agent-server.js";

// Each step of the one user turn, in order (step N: N model calls since the user's message).
const script = `
rules:
  - id: read-pdf
    when: { step: 0, last_human: "as text: (/mnt/user-data/uploads/\\\\S+\\\\.pdf\\\\.md)" }
    tool_calls: [{ name: read_file, args: { path: "{{match.1}}" } }]
  - id: write-pdf
    when: { step: 1, last_tool_name: read_file }
    tool_calls: [{ name: write_file, args: { path: /mnt/user-data/outputs/summary.md, content: "# Summary\\n\\n## The PDF\\n{{lastToolResult}}\\n" } }]
  - id: read-docx
    when: { step: 2, last_human: "as text: (/mnt/user-data/uploads/\\\\S+\\\\.docx\\\\.md)" }
    tool_calls: [{ name: read_file, args: { path: "{{match.1}}" } }]
  - id: write-docx
    when: { step: 3, last_tool_name: read_file }
    tool_calls: [{ name: write_file, args: { path: /mnt/user-data/outputs/summary.md, append: true, content: "\\n## The DOCX\\n{{lastToolResult}}\\n" } }]
  - id: sum-csv
    when: { step: 4, last_human: "(/mnt/user-data/uploads/\\\\S+\\\\.csv) \\\\(" }
    tool_calls: [{ name: bash, args: { command: "awk -F, 'NR > 1 { total += $2 } END { print \\"total:\\", total }' {{match.1}}" } }]
  - id: write-csv
    when: { step: 5, last_tool_name: bash }
    tool_calls: [{ name: write_file, args: { path: /mnt/user-data/outputs/summary.md, append: true, content: "\\n## The CSV\\n{{lastToolResult}}\\n" } }]
  - id: present
    when: { step: 6, last_tool_name: write_file }
    tool_calls: [{ name: present_files, args: { paths: [/mnt/user-data/outputs/summary.md] } }]
  - id: done
    when: { last_tool_name: present_files }
    reply: "Your summary is ready. {{lastToolResult}}"
fallback:
  reply: "The script went off its path: {{lastHuman}}"
`;

const agent = useListeningAgentServer({
  configYaml: "data_dir: data\nmodels:\n  providers:\n    s:\n      provider: scripted\n      script: script.yaml\n",
  files: { "script.yaml": script },
});

const csv = "region,total\nnorth,10\nsouth,32\n";
const pdfText = "Revenue grew twelve percent in the third quarter";
const docxText = "The board approved the plan for the pelican project";

interface Artifact {
  path: string;
  name: string;
  size: number;
  mime_type: string;
  url: string;
}
interface StoredMessage {
  type: string;
  content: unknown;
  additional_kwargs?: Record<string, unknown>;
  artifact?: unknown;
}

/** POST /threads/:id/files with the three documents, as a browser's FormData. */
async function uploadDocuments(threadId: string): Promise<Response> {
  const form = new FormData();
  form.append("file", new Blob([csv], { type: "text/csv" }), "q3.csv");
  form.append("file", new Blob([await makePdf([pdfText])], { type: "application/pdf" }), "report.pdf");
  form.append("file", new Blob([makeDocx("Minutes", [docxText])]), "minutes.docx");
  return fetch(`${agent.url}/threads/${threadId}/files`, { method: "POST", body: form });
}

/** What a client checks of the presented summary: the artifact in the state, then its download (bytes, ETag, Range). */
async function checkSummary(threadId: string, artifacts: Artifact[]): Promise<void> {
  const onDisk = fs.readFileSync(path.join(agent.dir, "data", "user-data", threadId, "outputs", "summary.md"));
  const text = onDisk.toString("utf8");
  // What the model read reached the file: the PDF's and the DOCX's text, and the CSV's total from bash.
  expect(text).toMatch(/^# Summary\n\n## The PDF\n/);
  expect(text).toContain(pdfText);
  expect(text).toContain(docxText);
  expect(text).toContain("total: 42");
  expect(artifacts).toEqual([{ path: "/mnt/user-data/outputs/summary.md", name: "summary.md", size: onDisk.length, mime_type: "text/markdown", url: `/threads/${threadId}/files/outputs/summary.md` }]);
  const url = new URL((artifacts[0] as Artifact).url, agent.url);
  const whole = await fetch(url);
  expect(whole.status).toBe(200);
  expect(Buffer.from(await whole.arrayBuffer()).equals(onDisk)).toBe(true);
  const etag = whole.headers.get("etag");
  expect(etag).toBeTruthy();
  // As a browser revalidates (fetch adds Cache-Control: no-cache to a conditional request unless told otherwise).
  expect((await fetch(url, { headers: { "if-none-match": etag as string, "cache-control": "max-age=0" } })).status).toBe(304);
  const part = await fetch(url, { headers: { range: "bytes=2-8" } });
  expect(part.status).toBe(206);
  expect(part.headers.get("content-range")).toBe(`bytes 2-8/${onDisk.length}`);
  expect(Buffer.from(await part.arrayBuffer()).equals(onDisk.subarray(2, 9))).toBe(true);
}

/** The turn's messages, checked: the note on the user's message, each tool the script drove, the artifact on the result and the answer. */
function checkTurn(messages: StoredMessage[]): Artifact[] {
  const [user] = messages;
  expect(user?.content).toBe("summarize the uploads");
  const note = user?.additional_kwargs?.uploaded_files as { files: { path: string; converted?: { path: string } }[]; more: number };
  expect(note.more).toBe(0);
  expect(note.files.map((file) => [file.path, file.converted?.path])).toEqual([
    ["/mnt/user-data/uploads/q3.csv", "/mnt/user-data/uploads/q3.csv.md"],
    ["/mnt/user-data/uploads/report.pdf", "/mnt/user-data/uploads/report.pdf.md"],
    ["/mnt/user-data/uploads/minutes.docx", "/mnt/user-data/uploads/minutes.docx.md"],
  ]);
  const tools = messages.filter((message) => message.type === "tool");
  expect(tools.map((message) => (message as { name?: string }).name)).toEqual(["read_file", "write_file", "read_file", "write_file", "bash", "write_file", "present_files"]);
  expect(tools.map((message) => (message as { status?: string }).status ?? "success").every((status) => status === "success")).toBe(true);
  const presented = tools.at(-1) as StoredMessage;
  const answer = messages.at(-1) as StoredMessage;
  expect(answer.content).toBe("Your summary is ready. Shown to the user: /mnt/user-data/outputs/summary.md (" + String((presented.artifact as Artifact[])[0]?.size) + " bytes)");
  expect(presented.additional_kwargs?.artifacts).toEqual(presented.artifact);
  expect(answer.additional_kwargs?.artifacts).toEqual(presented.artifact);
  return presented.artifact as Artifact[];
}

describe("thread files end to end", { timeout: 120_000 }, () => {
  it("over fetch: upload, the model reads, writes and presents, the client downloads the artifact", async () => {
    const { thread_id: threadId } = (await (await fetch(`${agent.url}/threads`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).json()) as { thread_id: string };
    const uploaded = await uploadDocuments(threadId);
    expect(uploaded.status).toBe(201);
    const run = await fetch(`${agent.url}/threads/${threadId}/runs/wait`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "lead_agent", input: { messages: [{ type: "human", content: "summarize the uploads" }] } }),
    });
    expect(run.status).toBe(200);
    const values = (await run.json()) as { messages: StoredMessage[]; artifacts: Artifact[]; uploadsSeen: number };
    const presented = checkTurn(values.messages);
    expect(values.artifacts).toEqual(presented);
    expect(values.uploadsSeen).toBe(3);
    const state = (await (await fetch(`${agent.url}/threads/${threadId}/state`)).json()) as { values: { artifacts: Artifact[] } };
    await checkSummary(threadId, state.values.artifacts);
  });

  it("with the LangGraph SDK: the stream carries the artifacts, the state keeps them, fetch downloads them", async () => {
    const client = new Client({ apiUrl: agent.url });
    const thread = await client.threads.create();
    expect((await uploadDocuments(thread.thread_id)).status).toBe(201);
    const streamed: { event: string; data: unknown }[] = [];
    for await (const part of client.runs.stream(thread.thread_id, "lead_agent", { input: { messages: [{ type: "human", content: "summarize the uploads" }] }, streamMode: ["values", "updates"] })) streamed.push(part);
    const tools = streamed.find((part) => part.event === "updates" && (part.data as { tools?: { artifacts?: unknown } }).tools?.artifacts)?.data as { tools: { artifacts: Artifact[] } } | undefined;
    expect(tools?.tools.artifacts).toHaveLength(1);
    const last = streamed.filter((part) => part.event === "values").at(-1)?.data as { messages: StoredMessage[]; artifacts: Artifact[] };
    expect(last.artifacts).toEqual(tools?.tools.artifacts);
    expect(checkTurn(last.messages)).toEqual(last.artifacts);

    const state = await client.threads.getState<{ artifacts: Artifact[] }>(thread.thread_id);
    await checkSummary(thread.thread_id, state.values.artifacts);
    // A later turn: no new uploads, so no note; the first message is stored as it was.
    const later = (await client.runs.wait(thread.thread_id, "lead_agent", { input: { messages: [{ type: "human", content: "thanks" }] } })) as { messages: StoredMessage[]; artifacts: Artifact[] };
    expect(later.messages.at(-2)?.additional_kwargs?.uploaded_files).toBeUndefined();
    expect(later.messages[0]).toEqual(last.messages[0]);
    expect(later.artifacts).toEqual(state.values.artifacts);
  });
});
