// The rules docker-compose.yml keeps (docs/docker.md), checked on the YAML as written or on
// `docker compose config --format json`'s reading of it: one build, one tag, the agent's security
// options, healthchecks on each service's own port and /healthz.

export interface ComposeService {
  readonly profiles?: string[];
  readonly image?: string;
  readonly pull_policy?: string;
  readonly build?: string | { readonly context?: string };
  readonly command?: string[];
  readonly environment?: Record<string, string | null>;
  readonly security_opt?: string[];
  readonly depends_on?: Record<string, { readonly condition?: string }> | string[];
  readonly healthcheck?: { readonly test?: string[] };
}

export interface ComposeFile {
  readonly services: Record<string, ComposeService | undefined>;
}

/** The one service that builds the image, and the tag every Thinktank service runs. */
export const imageService = "image";
const agentCommand = "apps/agent/dist/src/start.js";
const gatewayCommand = "apps/cli/bin/thinktank.js";
/** What bubblewrap needs in a container: namespaces (seccomp, AppArmor) and a fresh /proc (systempaths). */
const agentSecurity = ["seccomp=unconfined", "apparmor=unconfined", "systempaths=unconfined"];

/** Every rule the file breaks, one line each, sorted; empty when it keeps them all. */
export function composeProblems(file: ComposeFile, options: { readonly profiles: readonly string[] }): string[] {
  const problems: string[] = [];
  const builder = file.services[imageService];
  const tag = builder?.image;
  if (!builder?.build) problems.push(`${imageService}: missing, or builds nothing (it builds the one image every Thinktank service runs)`);
  if (builder && builder.pull_policy !== "never") problems.push(`${imageService}: pull_policy is not never (Compose would ask a registry for ${tag} before building it)`);
  const names = Object.keys(file.services).filter((name) => {
    const profiles = file.services[name]?.profiles;
    return !profiles || profiles.some((profile) => options.profiles.includes(profile));
  });
  for (const name of names) {
    const service = file.services[name] ?? {};
    const command = (service.command ?? []).join(" ");
    const isAgent = command.includes(agentCommand);
    const isGateway = command.includes(gatewayCommand);
    if (name !== imageService && service.build) problems.push(`${name}: builds an image of its own (only \`${imageService}\` builds ${tag})`);
    if (!isAgent && !isGateway) continue;
    if (service.image !== tag) problems.push(`${name}: runs ${service.image ?? "no image"}, not ${tag}`);
    if (service.pull_policy !== "never") problems.push(`${name}: pull_policy is not never (Compose would ask a registry for ${tag}, which only the \`${imageService}\` service makes)`);
    const dependsOn = Array.isArray(service.depends_on) ? {} : (service.depends_on ?? {});
    if (dependsOn[imageService]?.condition !== "service_completed_successfully") problems.push(`${name}: does not wait for \`${imageService}\` (depends_on condition service_completed_successfully)`);
    if (isAgent) {
      // Compose accepts `seccomp:unconfined` and `seccomp=unconfined`.
      const options = (service.security_opt ?? []).map((option) => option.replace(/^(seccomp|apparmor|label):/, "$1="));
      for (const needed of agentSecurity) if (!options.includes(needed)) problems.push(`${name}: security_opt lacks ${needed}`);
    }
    const port = service.environment?.[isAgent ? "AGENT_PORT" : "GATEWAY_PORT"];
    const test = (service.healthcheck?.test ?? []).join(" ");
    const target = /http:\/\/127\.0\.0\.1:(\d+)(\/[^'"\s)]*)/.exec(test);
    if (!target) problems.push(`${name}: no healthcheck on http://127.0.0.1:<port>/healthz`);
    else {
      if (target[1] !== port) problems.push(`${name}: healthcheck asks port ${target[1]}, but the service listens on ${port}`);
      if (target[2] !== "/healthz") problems.push(`${name}: healthcheck asks ${target[2]}, not /healthz`);
    }
  }
  return problems.sort();
}

/** The healthcheck command of a service (`CMD node -e <script>`) as node arguments, and the port it asks. */
export function healthcheckCommand(service: ComposeService): { args: string[]; port: string } {
  const test = service.healthcheck?.test ?? [];
  if (test[0] !== "CMD" || test[1] !== "node") throw new Error(`not a CMD node healthcheck: ${JSON.stringify(test)}`);
  const port = /127\.0\.0\.1:(\d+)\//.exec(test.join(" "))?.[1];
  if (!port) throw new Error(`no port in ${JSON.stringify(test)}`);
  return { args: test.slice(2), port };
}
