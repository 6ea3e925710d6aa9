# One image for both services. The gateway is the default command; docker-compose.yml runs the
# agent server from the same image. Both run the build (dist/, compiled in the image) with plain node.
#
#   docker build -t thinktank .
#   docker run -u "$(id -u):$(id -g)" -v "$PWD:/srv/thinktank" -e THINKTANK_CONFIG=/srv/thinktank/config.yaml \
#     -e THINKTANK_API_KEY=... -e GATEWAY_HOST=0.0.0.0 -p 8001:8001 thinktank
#
# The services write their data (data_dir, extensions_config.json, installed skills and plugins) into
# the folder of their config.yaml: mount one this uid owns, as docker-compose.yml does.
#
# No `# syntax=` line: BuildKit's own Dockerfile frontend builds it, so an offline build needs no
# frontend image. Stages: base -> manifests -> deps -> build -> production -> runtime; the last
# holds no devDependencies. apps/cli/test/docker-files.test.ts checks these stages without an engine.

FROM node:20-bookworm-slim AS base
WORKDIR /app

# The package manifests alone, so the dependency layer below is rebuilt only when they change.
FROM base AS manifests
COPY . /src
RUN mkdir /manifests \
 && cd /src \
 && find . -name node_modules -prune -o \( -name package.json -o -name package-lock.json \) -print \
    | xargs -I{} cp --parents {} /manifests

# Dependencies, with a compiler at hand for native modules (better-sqlite3) that have no prebuilt binary.
FROM base AS deps
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY --from=manifests /manifests/ ./
# The root "prepare" script (the build) needs the sources, which this layer leaves out on purpose:
# it runs in the next stage.
RUN npm pkg delete scripts.prepare && npm ci --no-audit --no-fund

# The build: tsc -b writes every workspace's dist/.
FROM deps AS build
COPY . .
RUN npm run build

# What runs: the build with the devDependencies (TypeScript, tsx, vitest, eslint, test servers, types)
# pruned away; the native modules compiled above stay as they are.
FROM build AS production
RUN npm prune --omit=dev --no-audit --no-fund

FROM base AS runtime
# bubblewrap: the default sandbox of execute_code. python3: Python script tools and Python code
# execution. tini: forwards signals and reaps the processes the agent starts (MCP servers, sandboxes).
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap python3 ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*
COPY --from=production /app ./
# extensions_config.json is left out of the build context (the gateway rewrites it on every change):
# the image starts with an empty one. docker-compose.yml points THINKTANK_CONFIG at the mounted folder.
RUN printf '%s\n' '{"mcpServers": {}, "skills": {}, "plugins": {}, "tools": {}}' > extensions_config.json
# No secrets in the image: THINKTANK_API_KEY and model keys come from the environment at run time.
USER node
EXPOSE 8001 2024
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.GATEWAY_PORT || 8001) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "apps/cli/bin/thinktank.js", "gateway"]
