# syntax=docker/dockerfile:1
# One image for both services. The gateway is the default command; docker-compose.yml runs the
# agent server from the same image. Both run the build (dist/, compiled in the image) with plain node.
#
#   docker build -t thinktank .
#   docker run -e THINKTANK_API_KEY=... -e GATEWAY_HOST=0.0.0.0 -p 8001:8001 thinktank

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

FROM base AS runtime
# bubblewrap: the default sandbox of execute_code. python3: Python script tools and Python code
# execution. tini: forwards signals and reaps the processes the agent starts (MCP servers, sandboxes).
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap python3 ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /app ./
# No secrets in the image: THINKTANK_API_KEY and model keys come from the environment at run time.
USER node
EXPOSE 8001 2024
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.GATEWAY_PORT || 8001) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "apps/cli/bin/thinktank.js", "gateway"]
