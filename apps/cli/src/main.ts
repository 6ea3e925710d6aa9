// Entry point of the `thinktank` binary (see ../bin/thinktank.js).
import { runCli } from "./run-cli.js";

const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
});
process.exitCode = code;
