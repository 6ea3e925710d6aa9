// Code mode and the sandbox through the LangGraph SDK against the agent server process: the model
// searches the tools, runs a program against server-everything and answers from what it printed;
// bash runs in the thread's sandbox with the skills and the workspace mounted.
import fs from "node:fs";
import path from "node:path";
import { referenceStdioEntry } from "@thinktank/mcp/testing";
import { describe, expect, it } from "vitest";
import { useSuiteProject } from "./support/suite-agent.js";

const script = `
rules:
  - when: { last_human: "^echo pelican through code", step: 0 }
    tool_calls: [{ name: search_tools, args: { query: "echo a message back", server: everything, detail: full } }]
  - when: { last_tool_name: search_tools }
    tool_calls:
      - name: execute_code
        args:
          code: "{{lastToolResult.json.tools[0].typescript_import}}\\nconst result = await {{lastToolResult.json.tools[0].name}}({ message: 'pelican' });\\nconsole.log('printed', JSON.stringify(result));"
  - when: { last_tool_name: execute_code }
    reply: "The program printed: {{lastToolResult.json.stdout}}"
  - when: { last_human: "^write (\\\\S+) (.+)$", step: 0 }
    tool_calls: [{ name: write_file, args: { path: "{{match.1}}", content: "{{match.2}}" } }]
  - when: { last_tool_name: write_file }
    reply: "{{lastToolResult}}"
  - when: { last_human: "^shell (.+)$", step: 0 }
    tool_calls: [{ name: bash, args: { command: "{{match.1}}" } }]
  - when: { last_tool_name: bash }
    reply: "{{lastToolResult}}"
  - when: { last_human: "^read (\\\\S+)", step: 0 }
    tool_calls: [{ name: read_file, args: { path: "{{match.1}}" } }]
  - when: { last_tool_name: read_file }
    reply: "{{lastToolResult}}"
`;

const suite = useSuiteProject({
  script,
  config: ["code_execution:", "  mode: code", "  timeout_seconds: 60", "sandbox:", "  warm_pool_size: 0"],
  extensions: { mcpServers: { everything: referenceStdioEntry("server-everything") }, skills: { "public:hidden": { enabled: false } } },
  files: {
    "skills/public/notes/SKILL.md": "---\nname: notes\ndescription: Keeps notes\n---\nNOTES-BODY\n",
    "skills/public/hidden/SKILL.md": "---\nname: hidden\ndescription: Disabled\n---\nHIDDEN-BODY\n",
  },
});

type Message = { type: string; content: unknown; name?: string; tool_calls?: { name: string; args: Record<string, unknown> }[] };
const human = (content: string) => ({ messages: [{ type: "human", content }] });
async function answer(threadId: string, text: string): Promise<string> {
  const values = (await suite.client.runs.wait(threadId, "lead_agent", { input: human(text) })) as { messages: Message[] };
  return String(values.messages.at(-1)?.content);
}

describe("code mode and the sandbox in a run", { timeout: 240_000 }, () => {
  it("search_tools then execute_code against server-everything; the answer comes from what the program printed; events stream in order", async () => {
    const thread = await suite.client.threads.create();
    const parts: { event: string; data: unknown }[] = [];
    for await (const part of suite.client.runs.stream(thread.thread_id, "lead_agent", { input: human("echo pelican through code"), streamMode: ["updates", "messages-tuple", "values"] })) {
      parts.push(part);
    }
    const events = parts.map((part) => part.event);
    expect(events[0]).toBe("metadata");
    expect(events.at(-1)).toBe("values");
    expect(events).not.toContain("error");
    const updates = parts.filter((part) => part.event === "updates").map((part) => Object.keys(part.data as object)[0]);
    expect(updates).toEqual(["model", "tools", "model", "tools", "model"]);
    const toolMessages = parts
      .filter((part) => part.event === "updates" && "tools" in (part.data as object))
      .flatMap((part) => (part.data as { tools: { messages: Message[] } }).tools.messages);
    expect(toolMessages.map((message) => message.name)).toEqual(["search_tools", "execute_code"]);
    const executed = JSON.parse(String(toolMessages[1]?.content)) as { exit_code: number; stdout: string; tools_called: { tool: string; status: string }[] };
    expect(executed).toMatchObject({ exit_code: 0, tools_called: [{ tool: "everything.echo", status: "ok" }] });
    expect(executed.stdout).toContain("pelican");
    // The final answer streams (messages events) after the last tool update, and quotes the program's output.
    const lastToolUpdate = parts.findLastIndex((part) => part.event === "updates" && "tools" in (part.data as object));
    expect(parts.slice(lastToolUpdate).some((part) => part.event === "messages")).toBe(true);
    const final = ((parts.at(-1)?.data as { messages: Message[] }).messages.at(-1)?.content ?? "") as string;
    expect(final.startsWith("The program printed: printed")).toBe(true);
    expect(final).toContain("pelican");
  });

  it("bash runs in the thread's sandbox: workspace shared with the file tools, enabled skills readable, nothing else", async () => {
    const thread = await suite.client.threads.create();
    const id = thread.thread_id;
    expect(await answer(id, "write /mnt/user-data/workspace/from-tool.txt written by write_file")).toBe("wrote 21 bytes to /mnt/user-data/workspace/from-tool.txt");
    const appended = await answer(id, "shell echo and bash >> from-tool.txt && cat from-tool.txt && pwd");
    expect(appended).toContain("exit code: 0");
    // The sandbox user may change a file write_file made: the file tools hand new files to the workspace's owner.
    expect(appended).toContain("written by write_fileand bash\n/mnt/user-data/workspace");
    expect(await answer(id, "read /mnt/user-data/workspace/from-tool.txt")).toBe("written by write_fileand bash\n");

    const skills = await answer(id, "shell ls /mnt/skills/public && cat /mnt/skills/public/notes/SKILL.md");
    expect(skills).toContain("notes");
    expect(skills).toContain("NOTES-BODY");
    expect(skills).not.toContain("hidden");
    const readOnly = await answer(id, "shell touch /mnt/skills/public/notes/new.txt");
    expect(readOnly).not.toContain("exit code: 0");
    const otherThread = await suite.client.threads.create();
    expect(await answer(otherThread.thread_id, "shell ls")).not.toContain("from-tool.txt");
  });

  it("bash writes deliverables into /mnt/user-data/outputs and the host sees them; uploads and skills stay read-only", async () => {
    const id = (await suite.client.threads.create()).thread_id;
    const hostFolder = (name: string) => path.join(suite.fixture.dir, "data/user-data", id, name);
    expect(await answer(id, "write /mnt/user-data/outputs/report.md drafted by write_file")).toBe("wrote 21 bytes to /mnt/user-data/outputs/report.md");
    fs.mkdirSync(hostFolder("uploads"), { recursive: true });
    fs.writeFileSync(path.join(hostFolder("uploads"), "input.csv"), "a,b\n");

    const wrote = await answer(id, "shell echo +bash >> /mnt/user-data/outputs/report.md && mkdir -p /mnt/user-data/outputs/charts && echo svg > /mnt/user-data/outputs/charts/q1.svg && echo written");
    expect(wrote).toContain("exit code: 0");
    expect(wrote).toContain("written");
    expect(fs.readFileSync(path.join(hostFolder("outputs"), "report.md"), "utf8")).toBe("drafted by write_file+bash\n");
    expect(fs.readFileSync(path.join(hostFolder("outputs"), "charts/q1.svg"), "utf8")).toBe("svg\n");
    expect(await answer(id, "read /mnt/user-data/outputs/charts/q1.svg")).toBe("svg\n");

    const refused = await answer(
      id,
      "shell for target in /mnt/user-data/uploads/input.csv /mnt/user-data/uploads/new.txt /mnt/skills/public/notes/SKILL.md /mnt/skills/public/notes/new.txt; do if ( echo x >> $target ) 2>/dev/null; then echo WROTE $target; else echo denied $target; fi; done",
    );
    expect(refused).not.toContain("WROTE");
    expect(refused.match(/^denied /gm)).toHaveLength(4);
    expect(fs.readdirSync(hostFolder("uploads"))).toEqual(["input.csv"]);
    expect(fs.readFileSync(path.join(hostFolder("uploads"), "input.csv"), "utf8")).toBe("a,b\n");
    expect(fs.readFileSync(path.join(suite.fixture.dir, "skills/public/notes/SKILL.md"), "utf8")).toContain("NOTES-BODY");
    expect(fs.existsSync(path.join(suite.fixture.dir, "skills/public/notes/new.txt"))).toBe(false);
  });
});
