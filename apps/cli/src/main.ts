// Entry point of the `thinktank` binary (see ../bin/thinktank.js).
import { runCli } from "./run-cli.js";

// A reader that stops early (`thinktank skills list | head`) closes the pipe: the rest of the output
// has nowhere to go, which is no failure of the command, so it ends as it would have.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
});

const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
});
process.exitCode = code;
