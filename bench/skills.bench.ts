// Skills: the agent's per-request snapshot + <skill_system> with 1,000 skills, installs through the
// API, and GET /api/skills throughput beside a trivial route in the same app.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type {} from "@fastify/multipart"; // request.parts() on the bench-only route
import { buildZip, createLogger, ExtensionsStore, loadConfig } from "@thinktank/core";
import { buildApp, createGatewayDeps } from "@thinktank/gateway";
import { SkillsSnapshotter, defaultSkillSources, loadSkills } from "@thinktank/skills";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { round, summarize, timeIt } from "./harness.js";
import type { Benchmark, BenchContext, Measurement } from "./harness.js";
import { measureRequestsPerSecond } from "./requests-per-second.js";

const skillCount = 1000;

function skillText(index: number, revision = 0): string {
  const name = `skill-${String(index).padStart(4, "0")}`;
  return [
    "---",
    `name: ${name}`,
    `description: "Handles task family ${index} (revision ${revision}): reads the inputs, checks them against the house rules, and writes a short report. Use when a request mentions family ${index}."`,
    "license: Apache-2.0",
    "allowed-tools: Read Grep Bash(git log:*)",
    "metadata:",
    '  version: "1.0"',
    "---",
    `# ${name}`,
    "",
    "Steps go here. See references/guide.md.",
    "",
  ].join("\n");
}

function generateSkills(root: string): void {
  const files: Record<string, string> = {};
  for (let i = 0; i < skillCount; i++) {
    const name = `skill-${String(i).padStart(4, "0")}`;
    files[`${name}/SKILL.md`] = skillText(i);
    files[`${name}/references/guide.md`] = `Guide for ${name}.\n`;
  }
  writeTree(root, files);
}

async function snapshotMeasurements(context: BenchContext, dir: string): Promise<Measurement[]> {
  const skillsRoot = path.join(dir, "skills");
  const store = new ExtensionsStore(path.join(dir, "extensions_config.json"));
  const sources = defaultSkillSources(skillsRoot);
  const cold = await timeIt(() => loadSkills({ sources }), { samples: 10, warmup: 2 });
  context.log(`full load of ${skillCount} skills (no cache): p50 ${round(cold.median)} ms`);

  const snapshotter = new SkillsSnapshotter({ sources, settings: store });
  try {
    const first = await snapshotter.snapshot();
    if (first.skills.length !== skillCount) throw new Error(`expected ${skillCount} skills, got ${first.skills.length}: ${first.problems[0]?.message ?? ""}`);
    const unchanged = await timeIt(() => snapshotter.snapshot(), { samples: 1000, warmup: 50 });
    context.log(`unchanged snapshot p50 ${round(unchanged.median, 4)} ms`);

    const changed: number[] = [];
    for (let i = 0; i < 80; i++) {
      const index = (i * 37) % skillCount;
      const file = path.join(skillsRoot, "public", `skill-${String(index).padStart(4, "0")}`, "SKILL.md");
      fs.writeFileSync(file, skillText(index, i + 1));
      const start = performance.now();
      const snapshot = await snapshotter.snapshot();
      const elapsed = performance.now() - start;
      const description = snapshot.skills.find((skill) => skill.relativePath === `skill-${String(index).padStart(4, "0")}`)?.description ?? "";
      if (!description.includes(`(revision ${i + 1})`)) throw new Error(`snapshot after an edit did not show it (skill ${index})`);
      if (!snapshot.promptSection.includes(`(revision ${i + 1})`)) throw new Error("the prompt section did not follow the edit");
      if (i >= 10) changed.push(elapsed);
    }
    const afterChange = summarize(changed);
    context.log(`snapshot after one skill changed p50 ${round(afterChange.median)} ms`);
    return [
      {
        name: `snapshot + <skill_system>, ${skillCount} skills, nothing changed`,
        value: round(unchanged.median, 4),
        unit: "ms",
        stats: { p95: round(unchanged.p95, 4), samples: unchanged.samples, "prompt bytes": Buffer.byteLength(first.promptSection) },
        baseline: { name: "full load without cache", value: round(cold.median), unit: "ms" },
        target: "p50 <= 2 ms",
        pass: unchanged.median <= 2,
      },
      {
        name: `snapshot + <skill_system>, ${skillCount} skills, one SKILL.md edited`,
        value: round(afterChange.median),
        unit: "ms",
        stats: { p95: round(afterChange.p95), samples: afterChange.samples },
        baseline: { name: "full load without cache", value: round(cold.median), unit: "ms" },
        target: "p50 <= 50 ms",
        pass: afterChange.median <= 50,
      },
    ];
  } finally {
    snapshotter.close();
  }
}

async function gatewayMeasurements(context: BenchContext, dir: string): Promise<Measurement[]> {
  const config = loadConfig({ cwd: dir, env: {} });
  const deps = createGatewayDeps(config, { logger: createLogger({ level: "silent", name: "gateway" }) });
  const app = buildApp(config, deps);
  app.get("/bench/trivial", async () => ({ ok: true }));
  app.post("/bench/discard", async (request) => {
    let bytes = 0;
    for await (const part of request.parts()) if (part.type === "file") bytes += (await part.toBuffer()).length;
    return { bytes };
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  try {
    const archive = buildZip(Array.from({ length: 500 }, (_, i) => (i === 0 ? { name: "big-skill/SKILL.md", data: "---\nname: big-skill\ndescription: A large skill for the install benchmark.\n---\n" } : { name: `big-skill/files/f${i}.bin`, data: crypto.randomBytes(10_480) })));
    context.log(`install archive: ${(archive.length / 1024 / 1024).toFixed(2)} MiB, 500 files`);
    const upload = async (url: string): Promise<number> => {
      const form = new FormData();
      form.append("overwrite", "true");
      form.append("file", new Blob([archive], { type: "application/zip" }), "big-skill.skill");
      const start = performance.now();
      const response = await fetch(url, { method: "POST", body: form });
      await response.arrayBuffer();
      if (response.status !== 201 && response.status !== 200) throw new Error(`${url} answered ${response.status}`);
      return performance.now() - start;
    };
    // What the file system alone charges for creating 500 files (the floor of any install).
    const rawWrite = (round: number): number => {
      const folder = path.join(dir, `raw-${round}`);
      const start = performance.now();
      fs.mkdirSync(folder);
      for (let i = 0; i < 500; i++) fs.writeFileSync(path.join(folder, `f${i}.bin`), archive.subarray(i * 10_000, i * 10_000 + 10_480), { flag: "wx" });
      const elapsed = performance.now() - start;
      fs.rmSync(folder, { recursive: true });
      return elapsed;
    };
    const installs: number[] = [];
    const discards: number[] = [];
    const raws: number[] = [];
    for (let i = 0; i < 25; i++) {
      const installMs = await upload(`${base}/api/skills/install`);
      const discardMs = await upload(`${base}/bench/discard`);
      const rawMs = rawWrite(i);
      if (i >= 5) {
        installs.push(installMs);
        discards.push(discardMs);
        raws.push(rawMs);
      }
    }
    const install = summarize(installs);
    const discard = summarize(discards);
    const raw = summarize(raws);
    context.log(`install p50 ${round(install.median)} ms; same upload parsed and discarded p50 ${round(discard.median)} ms; 500 files written directly p50 ${round(raw.median)} ms`);

    const list = await measureRequestsPerSecond(`${base}/api/skills`, { connections: 8, durationMs: 4000 });
    const trivial = await measureRequestsPerSecond(`${base}/bench/trivial`, { connections: 8, durationMs: 4000 });
    if (list.errors > 0 || trivial.errors > 0) throw new Error(`non-2xx answers: ${list.errors} from /api/skills, ${trivial.errors} from the trivial route`);
    const bodyBytes = (await (await fetch(`${base}/api/skills`)).arrayBuffer()).byteLength;
    context.log(`GET /api/skills ${round(list.requestsPerSecond, 0)} req/s; trivial route ${round(trivial.requestsPerSecond, 0)} req/s`);
    return [
      {
        name: "POST /api/skills/install, 5 MiB archive of 500 files (overwrite)",
        value: round(install.median),
        unit: "ms",
        stats: { p95: round(install.p95), samples: install.samples, "writing the 500 files directly, p50 ms": round(raw.median), "ratio to writing them directly": round(install.median / raw.median, 2) },
        baseline: { name: "same upload, parsed and discarded", value: round(discard.median), unit: "ms" },
        target: "p50 <= 300 ms",
        pass: install.median <= 300,
      },
      {
        name: `GET /api/skills, ${skillCount + 1} skills`,
        value: round(list.requestsPerSecond, 0),
        unit: "req/s",
        stats: { "p50 latency ms": round(list.latency.median, 3), "body KiB": round(bodyBytes / 1024, 0), "ratio to trivial route": round(list.requestsPerSecond / trivial.requestsPerSecond, 3) },
        baseline: { name: "trivial Fastify route, same app", value: round(trivial.requestsPerSecond, 0), unit: "req/s" },
      },
    ];
  } finally {
    await app.close();
  }
}

const benchmark: Benchmark = {
  title: "Skills: snapshot and <skill_system>, installs, GET /api/skills",
  issue: 2,
  async run(context): Promise<Measurement[]> {
    const temp = makeTempDir("tt-bench-skills-");
    try {
      writeTree(temp.dir, {
        "config.yaml": "log:\n  level: silent\n",
        "extensions_config.json": JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }),
        "skills/custom/.gitkeep": "",
      });
      context.log(`generating ${skillCount} skills`);
      generateSkills(path.join(temp.dir, "skills", "public"));
      return [...(await snapshotMeasurements(context, temp.dir)), ...(await gatewayMeasurements(context, temp.dir))];
    } finally {
      temp.cleanup();
    }
  },
};

export default benchmark;
