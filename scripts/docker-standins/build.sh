#!/usr/bin/env bash
# Local stand-ins for the base images Dockerfile and docker-compose.yml name, for a machine whose
# Docker daemon cannot pull (docs/docker.md, "The run under an engine"). Each is built from a Debian
# bookworm root filesystem (debootstrap, Debian's packages only) and tagged with the exact name the
# files use, so `docker build` and the compose emulation find them locally:
#   node:20-bookworm-slim  bookworm minbase + this host's node binary and npm copied into /usr/local,
#                          its headers in /usr/local/include/node (the official image has them too)
#                          with npm_config_nodedir pointing there, as this host's npm config does, so
#                          node-gyp compiles better-sqlite3 without fetching headers from the internet;
#                          user and group `node` (1000:1000) as in the official image, and this
#                          host's CA bundle (NODE_EXTRA_CA_CERTS, npm_config_cafile): a machine whose
#                          registry traffic passes a TLS-inspecting proxy needs its CA for npm ci
#   postgres:16-alpine     bookworm + Debian's postgresql-15 (not 16, not Alpine), an entrypoint that
#                          initialises $PGDATA with POSTGRES_USER/PASSWORD/DB as the official one does
#   redis:7-alpine         bookworm + Debian's redis-server 7.0 (runs the compose command as given)
#   nginx:1.28-alpine      bookworm + Debian's nginx 1.22 (`nginx -g 'daemon off;'`, the mounted conf)
# They are stand-ins, not the official images: other versions, glibc instead of musl, no extras.
# Usage: scripts/docker-standins/build.sh [--force]   (root; needs debootstrap and the Debian mirror)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="${STANDIN_WORK:-/var/tmp/thinktank-standins}"
base_tag="thinktank-standin/bookworm:minbase"
force="${1:-}"
mkdir -p "$work"

have() { [ "$force" != "--force" ] && docker image inspect "$1" >/dev/null 2>&1; }
# --force rebuilds the stand-ins (not the debootstrap root filesystem, kept in $work).

if ! docker image inspect "$base_tag" >/dev/null 2>&1; then
  if [ ! -x "$work/rootfs/bin/sh" ]; then
    rm -rf "$work/rootfs"
    debootstrap --variant=minbase bookworm "$work/rootfs" http://deb.debian.org/debian
  fi
  rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb "$work/rootfs/var/lib/apt/lists/"*
  tar -C "$work/rootfs" -c . | docker import - "$base_tag"
fi

build() { # tag, folder with a Dockerfile
  have "$1" && { echo "stand-in $1: present"; return; }
  docker build --network host -t "$1" "$2"
}

# node: the host's own Node 20 (the Dockerfile's base), as the official image lays it out.
if ! have node:20-bookworm-slim; then
  ctx="$work/node"; rm -rf "$ctx"; mkdir -p "$ctx/usr/local/bin" "$ctx/usr/local/lib/node_modules"
  node_bin="$(command -v node)"
  case "$("$node_bin" --version)" in v20.*) ;; *) echo "the host's node is not Node 20" >&2; exit 1 ;; esac
  cp "$node_bin" "$ctx/usr/local/bin/node"
  mkdir -p "$ctx/usr/local/include"
  cp -a "$(dirname "$(dirname "$(readlink -f "$node_bin")")")/include/node" "$ctx/usr/local/include/node"
  cp -a "$(dirname "$(readlink -f "$(command -v npm)")")/.." "$ctx/usr/local/lib/node_modules/npm"
  mkdir -p "$ctx/usr/local/share/thinktank-standin"
  cp /etc/ssl/certs/ca-certificates.crt "$ctx/usr/local/share/thinktank-standin/host-ca.crt"
  cp "$here/node.Dockerfile" "$ctx/Dockerfile"
fi
build node:20-bookworm-slim "$work/node"
build postgres:16-alpine "$here/postgres"
build redis:7-alpine "$here/redis"
build nginx:1.28-alpine "$here/nginx"
docker image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E '^(node|postgres|redis|nginx):' 
