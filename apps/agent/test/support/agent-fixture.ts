import fs from "node:fs";
import path from "node:path";
import { freePort, makeTempDir, writeTree } from "@thinktank/testing";

/** The chat script the integration tests drive the agent with. */
export const testScript = `
name: agent integration tests
rules:
  - id: read
    when: { last_human: "^read (\\\\S+)", step: 0 }
    reply: "Reading it."
    tool_calls:
      - name: read_file
        args: { path: "{{match.1}}" }
  - id: ask
    when: { last_human: "^ask", step: 0 }
    tool_calls:
      - name: request_human_input
        args: { question: "Which colour?" }
  - id: answered
    when: { last_tool_name: request_human_input }
    reply: "Your colour is {{lastToolResult}}."
  - id: read-result
    when: { last_tool_name: read_file }
    reply: "The file says: {{lastToolResult}}"
  - id: remember
    when: { last_human: "^what did I say" }
    reply: "You are on step {{step}}; the last thing you said was: {{lastHuman}}"
  - id: list
    when: { last_human: "^list (\\\\S+)", step: 0 }
    reply: "Listing it."
    tool_calls:
      - name: ls
        args: { path: "{{match.1}}" }
  - id: list-result
    when: { last_tool_name: ls }
    reply: "Listed: {{lastToolResult}}"
  - id: prompt
    when: { last_human: "^show prompt", system: "<skill_system>" }
    reply: "the prompt has a skill system"
fallback:
  reply: "Hello from the script. You said: {{lastHuman}}"
`;

export interface AgentFixture {
  readonly dir: string;
  readonly port: number;
  readonly env: Record<string, string>;
  cleanup(): void;
}

export interface AgentFixtureOptions {
  /** The whole config.yaml. @default the data dir, warn logs and the scripted model, plus `extraConfig` */
  readonly configYaml?: string;
  /** Lines added to the default config.yaml: sections it leaves out, such as `agent:`. */
  readonly extraConfig?: readonly string[];
  readonly env?: Record<string, string>;
}

const defaultConfig = ["data_dir: data", "log:", "  level: warn", "models:", "  default: scripted", "  providers:", "    scripted:", "      provider: scripted", "      script: script.yaml"];

/** A temp folder with config.yaml (scripted model, data dir, skills) and a free port. */
export async function makeAgentFixture(options: AgentFixtureOptions = {}): Promise<AgentFixture> {
  const temp = makeTempDir("tt-agent-");
  const port = await freePort();
  writeTree(temp.dir, {
    "config.yaml": options.configYaml ?? [...defaultConfig, ...(options.extraConfig ?? []), ""].join("\n"),
    "script.yaml": testScript,
    "skills/public/notes/SKILL.md": "---\nname: notes\ndescription: Keeps notes\n---\nThe secret word is pelican.\n",
    "extensions_config.json": '{"mcpServers": {}, "skills": {}, "plugins": {}, "tools": {}}\n',
  });
  fs.mkdirSync(path.join(temp.dir, "skills", "custom"), { recursive: true });
  return {
    dir: temp.dir,
    port,
    env: { THINKTANK_CONFIG: path.join(temp.dir, "config.yaml"), AGENT_PORT: String(port), ...options.env },
    cleanup: temp.cleanup,
  };
}
