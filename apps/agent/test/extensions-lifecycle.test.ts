// The gateway and the agent server as two processes sharing one project folder: what the gateway
// installs, enables and disables shows in the agent's very next run, with no restart.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gatewayRequest } from "./support/project-fixture.js";
import { useSuiteProject } from "./support/suite-agent.js";

// The scripted model cannot print its system prompt, so each check is a rule that answers only when
// the prompt it was sent contains the text (see docs/skill-contexts.md, "Testing").
const script = `
rules:
  - when: { last_human: "^check custom skill", system: "<name>release-notes</name>" }
    reply: "custom skill listed"
  - when: { last_human: "^check plugin skill", system: "<location>/mnt/skills/plugins/acme/handbook/SKILL.md</location>" }
    reply: "plugin skill listed"
  - when: { last_human: "^check plugin command", system: "/acme:greet &lt;name&gt;: Greet someone warmly." }
    reply: "plugin command listed"
  - when: { last_human: "^check skill command", system: "/release-notes [version]" }
    reply: "skill command listed"
  - when: { last_human: "^check " }
    reply: "not listed"
  - when: { last_human: "^read (\\\\S+)", step: 0 }
    tool_calls: [{ name: read_file, args: { path: "{{match.1}}" } }]
  - when: { last_tool_name: read_file }
    reply: "read: {{lastToolResult}}"
  - when: { last_human: "^Greet (\\\\w+) warmly" }
    reply: "expanded for {{match.1}}"
fallback:
  reply: "fallback: {{lastHuman}}"
`;

const suite = useSuiteProject({
  script,
  files: {
    "sources/release-notes/SKILL.md": "---\nname: release-notes\ndescription: Drafts release notes from a changelog\nargument-hint: \"[version]\"\n---\nRELEASE-NOTES-BODY: write notes for $ARGUMENTS.\n",
    "sources/acme/.claude-plugin/plugin.json": JSON.stringify({ name: "acme", version: "1.0.0", description: "Acme tools" }),
    "sources/acme/commands/greet.md": "---\ndescription: Greet someone warmly. Then say more.\nargument-hint: <name>\n---\nGreet $1 warmly and mention the handbook.\n",
    "sources/acme/skills/handbook/SKILL.md": "---\nname: handbook\ndescription: Answers questions from the Acme handbook\n---\nHANDBOOK-BODY: vacation is 30 days.\n",
  },
  gateway: true,
});

type Message = { type: string; content: unknown; additional_kwargs?: Record<string, unknown> };
async function ask(text: string): Promise<Message[]> {
  const values = (await suite.client.runs.wait(null, "lead_agent", { input: { messages: [{ type: "human", content: text }] } })) as { messages: Message[] };
  return values.messages;
}
const answer = async (text: string): Promise<unknown> => (await ask(text)).at(-1)?.content;

describe("extensions installed through the gateway reach the agent's next run", { timeout: 120_000 }, () => {
  it("shows nothing before the installs", async () => {
    expect(await answer("check custom skill")).toBe("not listed");
    expect(await answer("check plugin skill")).toBe("not listed");
    expect(await answer("check plugin command")).toBe("not listed");
  });

  it("lists an installed skill and plugin (skill, command) in the very next run, and reads the plugin's skill", async () => {
    const skill = await gatewayRequest(suite.gateway, "POST", "/api/skills/install", { path: path.join(suite.fixture.dir, "sources/release-notes") });
    expect(skill.status, JSON.stringify(skill.body)).toBe(201);
    const plugin = await gatewayRequest(suite.gateway, "POST", "/api/plugins/install", { path: path.join(suite.fixture.dir, "sources/acme") });
    expect(plugin.status, JSON.stringify(plugin.body)).toBe(201);

    expect(await answer("check custom skill")).toBe("custom skill listed");
    expect(await answer("check plugin skill")).toBe("plugin skill listed");
    expect(await answer("check plugin command")).toBe("plugin command listed");
    expect(await answer("check skill command")).toBe("skill command listed");
    expect(await answer("read /mnt/skills/plugins/acme/handbook/SKILL.md")).toContain("HANDBOOK-BODY");
    expect(await answer("read /mnt/skills/custom/release-notes/SKILL.md")).toContain("RELEASE-NOTES-BODY");
  });

  it("expands slash commands before the model sees them, and answers unknown ones with near matches", async () => {
    const greeted = await ask("/acme:greet Ada");
    expect(greeted.at(-1)?.content).toBe("expanded for Ada");
    expect(greeted[0]).toMatchObject({ type: "human", content: "Greet Ada warmly and mention the handbook." });
    expect(greeted[0]?.additional_kwargs?.slash_command).toMatchObject({ kind: "command", invocation: "/acme:greet", plugin: "acme", typed: "/acme:greet", original: "/acme:greet Ada" });

    const skill = await ask("/release-notes 2.1");
    expect(String(skill[0]?.content)).toContain("RELEASE-NOTES-BODY: write notes for 2.1.");
    expect(skill[0]?.additional_kwargs?.slash_command).toMatchObject({ kind: "skill", identity: "custom:release-notes" });

    const unknown = await ask("/acme:gret Ada");
    expect(unknown.map((message) => message.type)).toEqual(["human", "ai"]);
    expect(unknown[1]?.content).toBe("unknown command /acme:gret; did you mean /acme:greet?");
    expect(unknown[1]?.additional_kwargs?.slash_command_error).toEqual({ code: "COMMAND_NOT_FOUND", suggestions: ["/acme:greet"] });
  });

  it("drops a disabled skill and plugin from the very next run, and refuses their files", async () => {
    expect((await gatewayRequest(suite.gateway, "PUT", "/api/skills/release-notes", { enabled: false })).status).toBe(200);
    expect((await gatewayRequest(suite.gateway, "PUT", "/api/plugins/acme", { enabled: false })).status).toBe(200);

    expect(await answer("check custom skill")).toBe("not listed");
    expect(await answer("check plugin skill")).toBe("not listed");
    expect(await answer("check plugin command")).toBe("not listed");
    expect(await answer("read /mnt/skills/custom/release-notes/SKILL.md")).toMatch(/^read: Error: SKILL_NOT_FOUND/);
    expect(await answer("read /mnt/skills/plugins/acme/handbook/SKILL.md")).toMatch(/^read: Error: SKILL_NOT_FOUND/);
    expect((await ask("/acme:greet Ada")).at(-1)?.content).toMatch(/^unknown command \/acme:greet/);
  });

  it("brings them back when enabled again", async () => {
    expect((await gatewayRequest(suite.gateway, "PUT", "/api/skills/release-notes", { enabled: true })).status).toBe(200);
    expect((await gatewayRequest(suite.gateway, "PUT", "/api/plugins/acme", { enabled: true })).status).toBe(200);
    expect(await answer("check custom skill")).toBe("custom skill listed");
    expect(await answer("check plugin command")).toBe("plugin command listed");
  });
});
