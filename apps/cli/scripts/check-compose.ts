// `npm run check:compose`: the compose rules of apps/cli/test/docker-files.test.ts on Compose's own
// reading of docker-compose.yml (`docker compose config --format json`, default and `--profile
// scale`). It needs the docker CLI's compose plugin but no engine, so it is not part of `npm test`
// (docs/docker.md, "Checked by hand").
import { spawnSync } from "node:child_process";
import path from "node:path";
import { repositoryRoot } from "@thinktank/testing";
import { composeProblems, type ComposeFile } from "../test/support/compose-rules.js";

const root = repositoryRoot();

function composeConfig(profile?: string): ComposeFile {
  const args = ["compose", "--project-directory", root, "-f", path.join(root, "docker-compose.yml"), ...(profile ? ["--profile", profile] : []), "config", "--format", "json"];
  const result = spawnSync("docker", args, { encoding: "utf8", timeout: 60_000, env: { ...process.env, THINKTANK_API_KEY: "compose-config-check" } });
  if (result.error) throw new Error(`no docker CLI: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`docker ${args.join(" ")} failed:\n${result.stderr}`);
  return JSON.parse(result.stdout) as ComposeFile;
}

const problems = [...composeProblems(composeConfig(), { profiles: [] }), ...composeProblems(composeConfig("scale"), { profiles: ["scale"] })];
for (const problem of problems) process.stderr.write(`${problem}\n`);
process.stdout.write(problems.length === 0 ? "docker compose config: both profiles pass the compose rules\n" : "");
process.exitCode = problems.length === 0 ? 0 : 1;
