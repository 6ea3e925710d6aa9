// `npm run screenshots`: screenshots of the console's main pages into docs/screenshots/*.png (chat,
// skills, plugins, servers, activity in light; chat in dark), 1280 x 800, against the real gateway
// and agent server with the scripted model, a thread with a tool call, the corpus's anthropic skills
// and two of its plugins when the corpus is there (local stand-ins otherwise), and a stdio MCP server.
import fs from "node:fs";
import path from "node:path";
import { missingReason, probeMcpServerScript, repositoryRoot } from "@thinktank/testing";
import { startConsoleBackend } from "./support/console-backend.js";
import { launchBrowser, openConsole } from "./support/console-browser.js";

const out = path.join(repositoryRoot(), "docs", "screenshots");
const withCorpus = missingReason("corpus") === undefined;

const script = `
name: console screenshots
rules:
  - id: list
    when: { last_human: "^What is in", step: 0 }
    reply: "I'll look at the files in your thread first."
    tool_calls:
      - name: ls
        args: { path: "/mnt/user-data" }
  - id: listed
    when: { last_tool_name: ls }
    reply: "Your thread has an **uploads** folder and an **outputs** folder, both empty so far.\\n\\n- Upload a file with the paperclip, or drag it in.\\n- Anything I make for you shows up under *Files*."
fallback:
  reply: "Hello! Ask me to use a skill, or type / for commands."
`;

const files: Record<string, string> = {
  "servers/probe-server.mjs": probeMcpServerScript,
  ...(withCorpus
    ? {}
    : {
        "skills/custom/field-notes/SKILL.md": "---\nname: field-notes\ndescription: Keeps field notes in a notebook, one per line\n---\nWrite one note per line.\n",
        "local-plugins/garden/.claude-plugin/plugin.json": JSON.stringify({ name: "garden", version: "1.0.0", description: "Garden helpers: pruning and watering" }),
        "local-plugins/garden/skills/pruning/SKILL.md": "---\nname: pruning\ndescription: When and how to prune\n---\nPrune in late winter.\n",
      }),
};

async function main(): Promise<void> {
  fs.mkdirSync(out, { recursive: true });
  const backend = await startConsoleBackend({
    script,
    files,
    ...(withCorpus ? { corpus: { skills: true, plugins: ["engineering", "design"], marketplace: true } } : {}),
  });
  const browser = await launchBrowser();
  try {
    if (!withCorpus) await backend.api("POST", "/api/plugins/install", { path: path.join(backend.projectDir, "local-plugins", "garden") });
    const server = await backend.api("PUT", "/api/mcp/servers/probe", { command: "node", args: [path.join(backend.projectDir, "servers", "probe-server.mjs")] });
    if (server.status >= 300) process.stderr.write(`adding the MCP server: ${server.status} ${JSON.stringify(server.body)}\n`);
    const thread = (await backend.api("POST", "/agent/threads", {})).body.thread_id as string;
    const ran = await backend.api("POST", `/agent/threads/${thread}/runs/wait`, { assistant_id: "lead_agent", input: { messages: [{ role: "user", content: "What is in my thread's folder?" }] } });
    if (ran.status !== 200) throw new Error(`the run: ${ran.status} ${JSON.stringify(ran.body)}`);

    const shots: { name: string; route: string; dark?: boolean }[] = [
      { name: "chat", route: `/threads/${thread}` },
      { name: "skills", route: "/skills" },
      { name: "plugins", route: "/plugins" },
      { name: "servers", route: "/servers" },
      { name: "activity", route: "/activity" },
      { name: "chat-dark", route: `/threads/${thread}`, dark: true },
    ];
    for (const shot of shots) {
      const tab = await openConsole(backend.url, { browser, colorScheme: shot.dark ? "dark" : "light", path: shot.route });
      try {
        await tab.page.locator("main h1, main h2").first().waitFor({ timeout: 30_000 });
        await tab.page.waitForFunction(() => document.querySelector("[aria-busy='true']") === null, undefined, { timeout: 30_000 });
        await tab.page.waitForLoadState("networkidle");
        await tab.page.screenshot({ path: path.join(out, `${shot.name}.png`) });
        process.stdout.write(`wrote docs/screenshots/${shot.name}.png\n`);
      } finally {
        await tab.close();
      }
    }
  } finally {
    await browser.close();
    await backend.close();
  }
}

await main();
