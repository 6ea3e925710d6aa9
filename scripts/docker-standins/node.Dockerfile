# Stand-in for node:20-bookworm-slim (scripts/docker-standins/build.sh): bookworm minbase, the host's Node 20.
FROM thinktank-standin/bookworm:minbase
COPY usr/local/ /usr/local/
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \
 && node --version && npm --version
# Native modules (better-sqlite3) compile against these headers instead of downloading them: no internet here.
ENV npm_config_nodedir=/usr/local
# This host's CA bundle, for npm ci behind a TLS-inspecting proxy (the official image has none: Node's own CAs).
ENV NODE_EXTRA_CA_CERTS=/usr/local/share/thinktank-standin/host-ca.crt npm_config_cafile=/usr/local/share/thinktank-standin/host-ca.crt
CMD ["node"]
