// Script files (`entry`) on each isolating backend: run as their interpreter runs a file (argv, the
// file's folder importable, CommonJS or ESM by Node's rules), on warm workers, each run in a fresh
// working folder of its own that is gone afterwards; what a backend cannot run is refused up front.
import fs from "node:fs";
import path from "node:path";
import { needs, writeTree } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxRequest, SandboxResult } from "../sandbox-types.js";
import { sandboxFixture } from "../test-support/sandbox-fixture.js";
import type { SandboxFixture } from "../test-support/sandbox-fixture.js";

const skillPath = "/mnt/skills/custom/demo";

for (const backend of ["bubblewrap", "deno"] as const) describe(`script files on the ${backend} backend`, { timeout: 180_000, ...(backend === "bubblewrap" ? needs("bubblewrap") : {}) }, () => {
  let fixture: SandboxFixture;
  let skillDir: string;
  let runs: string;
  const run = (request: Omit<SandboxRequest, "workspaceDir" | "mounts">): Promise<SandboxResult> =>
    fixture.executor.run({ timeoutMs: 60_000, workspaceDir: runs, freshWorkspace: true, mounts: [{ hostPath: skillDir, sandboxPath: skillPath }], ...request });
  /** The script as the program sees it: its sandbox path, or on deno's JavaScript its host path. */
  const seen = (relative: string, language: string): string => (backend === "deno" && language === "javascript" ? path.join(fs.realpathSync(skillDir), relative) : `${skillPath}/${relative}`);

  beforeAll(() => {
    fixture = sandboxFixture({ backend, warmPoolSize: 1 });
    skillDir = path.join(fixture.root, "skill");
    runs = path.join(fixture.root, "script-runs");
    fs.mkdirSync(runs, { mode: 0o711 });
    writeTree(skillDir, {
      "scripts/main.py": "import json, os, sys\nimport helper\nargs = json.load(sys.stdin)\nprint(json.dumps({'argv': sys.argv, 'path0': sys.path[0], 'helper': helper.VALUE, 'n': args['n'], 'env': os.environ.get('GREETING')}))\n",
      "scripts/helper.py": "VALUE = 'from the script folder'\n",
      "scripts/common.js": "const fs = require('node:fs');\nconst helper = require('./helper.js');\nconst args = JSON.parse(fs.readFileSync(0, 'utf8'));\nconsole.log(JSON.stringify({ kind: typeof module, file: __filename, argv: process.argv.slice(1), helper, n: args.n, env: process.env.GREETING }));\n",
      "scripts/helper.js": "module.exports = 'required beside it';\n",
      "scripts/module.mjs": "import fs from 'node:fs';\nconst args = JSON.parse(fs.readFileSync(0, 'utf8'));\nconsole.log(JSON.stringify({ kind: 'esm', url: import.meta.url, n: args.n }));\n",
      "scripts/detected.js": "import fs from 'node:fs';\nconsole.log(JSON.stringify({ kind: 'esm by syntax', n: JSON.parse(fs.readFileSync(0, 'utf8')).n }));\n",
      "scripts/typed/package.json": '{ "type": "module" }\n',
      "scripts/typed/tool.js": "console.log(JSON.stringify({ kind: typeof require === 'undefined' ? 'esm by package.json' : 'commonjs' }));\n",
      "scripts/tool.sh": 'read -r line\nprintf \'{"argv0": "%s", "input": %s, "env": "%s"}\\n\' "$0" "$line" "$GREETING"\n',
      "scripts/workspace.py": "import json, os\nfound = sorted(os.listdir('.'))\nopen('mine.txt', 'w').write('x')\nprint(json.dumps({'found': found, 'cwd': os.getcwd()}))\n",
    });
  });
  afterAll(() => fixture.cleanup());

  it("runs a Python file as python3 file does: argv[0] is the file, its folder is importable, stdin and env as given", async () => {
    const result = await run({ language: "python", entry: `${skillPath}/scripts/main.py`, stdin: '{"n": 7}', env: { GREETING: "hi" } });
    expect(result.error, result.stderr).toBeUndefined();
    expect(JSON.parse(result.stdout)).toEqual({ argv: [`${skillPath}/scripts/main.py`], path0: `${skillPath}/scripts`, helper: "from the script folder", n: 7, env: "hi" });
  });

  it("runs JavaScript files by Node's rules: CommonJS with require beside it, .mjs and package.json type module as ESM, ESM syntax detected", async () => {
    const common = await run({ language: "javascript", entry: `${skillPath}/scripts/common.js`, stdin: '{"n": 3}', env: { GREETING: "hello" } });
    expect(common.error, common.stderr).toBeUndefined();
    const file = seen("scripts/common.js", "javascript");
    expect(JSON.parse(common.stdout)).toEqual({ kind: "object", file, argv: [file], helper: "required beside it", n: 3, env: "hello" });
    const module = await run({ language: "javascript", entry: `${skillPath}/scripts/module.mjs`, stdin: '{"n": 4}' });
    expect(module.error, module.stderr).toBeUndefined();
    expect(JSON.parse(module.stdout)).toEqual({ kind: "esm", url: `file://${seen("scripts/module.mjs", "javascript")}`, n: 4 });
    const detected = await run({ language: "javascript", entry: `${skillPath}/scripts/detected.js`, stdin: '{"n": 5}' });
    expect(detected.error, detected.stderr).toBeUndefined();
    expect(JSON.parse(detected.stdout)).toEqual({ kind: "esm by syntax", n: 5 });
    const typed = await run({ language: "javascript", entry: `${skillPath}/scripts/typed/tool.js` });
    expect(JSON.parse(typed.stdout)).toEqual({ kind: "esm by package.json" });
  });

  it("gives each run a fresh, empty working folder of its own, on a warm worker, and removes it after", async () => {
    const first = await run({ language: "python", entry: `${skillPath}/scripts/workspace.py` });
    expect(first.error, first.stderr).toBeUndefined();
    await fixture.executor.prewarm({ language: "python", workspaceDir: runs, freshWorkspace: true, mounts: [{ hostPath: skillDir, sandboxPath: skillPath }] });
    const second = await run({ language: "python", entry: `${skillPath}/scripts/workspace.py` });
    expect(second.warm).toBe(true);
    // The file the first run wrote is not there for the second: each run had its own folder.
    expect(JSON.parse(first.stdout)).toEqual({ found: [], cwd: "/mnt/user-data/workspace" });
    expect(JSON.parse(second.stdout)).toEqual({ found: [], cwd: "/mnt/user-data/workspace" });
    // Only the idle warm worker's own (empty) folder is left: the runs' folders are gone.
    for (const name of fs.readdirSync(runs)) expect(fs.readdirSync(path.join(runs, name))).toEqual([]);
    expect(fs.readdirSync(runs).length).toBeLessThanOrEqual(1);
  });

  it("refuses a script outside the mounts, a link out of its mount, and a request with both source and entry, before anything runs", async () => {
    fs.symlinkSync("/etc/passwd", path.join(skillDir, "scripts", "passwd.py"));
    const outside = await run({ language: "python", entry: "/etc/passwd" });
    expect(outside.error).toMatchObject({ code: "INVALID_PATH", message: expect.stringContaining("not inside any of the request's mounts") });
    const linked = await run({ language: "python", entry: `${skillPath}/scripts/passwd.py` });
    expect(linked.error).toMatchObject({ code: "INVALID_PATH", message: expect.stringContaining("leads outside its mount") });
    const both = await run({ language: "python", entry: `${skillPath}/scripts/main.py`, source: "print(1)" });
    expect(both.error).toMatchObject({ code: "VALIDATION_FAILED", message: expect.stringContaining("exactly one of source") });
  });

  if (backend === "bubblewrap") {
    it("runs a shell script file with bash", async () => {
      expect(await fixture.executor.supportsEntry("shell")).toEqual({ ok: true });
      const result = await run({ language: "shell", entry: `${skillPath}/scripts/tool.sh`, stdin: '{"n": 1}\n', env: { GREETING: "hey" } });
      expect(result.error, result.stderr).toBeUndefined();
      expect(JSON.parse(result.stdout)).toEqual({ argv0: `${skillPath}/scripts/tool.sh`, input: { n: 1 }, env: "hey" });
    });
  } else {
    it("says up front that it runs no shell script file, and refuses one without starting anything", async () => {
      const support = await fixture.executor.supportsEntry("shell");
      expect(support).toMatchObject({ ok: false, reason: expect.stringContaining("runs no shell script file") });
      expect(await fixture.executor.supportsEntry("python")).toEqual({ ok: true });
      expect(await fixture.executor.supportsEntry("javascript")).toEqual({ ok: true });
      const before = fs.readdirSync(runs);
      const result = await run({ language: "shell", entry: `${skillPath}/scripts/tool.sh` });
      expect(result).toMatchObject({ exitCode: null, stdout: "", error: { code: "SANDBOX_UNAVAILABLE", message: expect.stringContaining("apt-get install bubblewrap") } });
      expect(fs.readdirSync(runs)).toEqual(before);
    });
  }
});
