import { loadConfig, reportListening } from "@thinktank/core";
import { runGateway } from "@thinktank/gateway";
import type { CliCommand } from "../cli-command.js";
import { stopSignal } from "./stop-signal.js";

/** `thinktank gateway`: the gateway alone, in the foreground, until Ctrl-C / SIGTERM (or its parent `thinktank start` goes away). */
export const gatewayCommand: CliCommand = {
  name: "gateway",
  summary: "Run the gateway (REST API, :8001) alone in the foreground",
  usage: ["gateway                 port, host and the API key from config.yaml or the environment (GATEWAY_PORT, GATEWAY_HOST, THINKTANK_API_KEY)"],
  async run(args, io) {
    if (args.length > 0) {
      io.stderr.write(`thinktank gateway: takes no arguments (got ${args.join(" ")}); configure it with config.yaml or the environment\n`);
      return 2;
    }
    const config = loadConfig({ env: io.env, cwd: io.cwd });
    const stop = stopSignal();
    try {
      await runGateway(config, { signal: stop.signal, onListening: reportListening });
    } finally {
      stop.dispose();
    }
    return 0;
  },
};
