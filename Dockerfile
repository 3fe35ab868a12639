# syntax=docker/dockerfile:1
# The etax image: `etax serve` on Node.js 20, as a user without privileges, with production
# dependencies only and the build made here, not at the first start (docs/operations.md
# § The container image). test/integration/container-image.test.ts runs these steps without
# Docker, in a clean copy of the repository, so they cannot drift from the code.

FROM node:20-bookworm-slim AS build
WORKDIR /app
# Dependencies first, so a change of the sources reuses their layer. No install scripts: the
# packages that have them (esbuild, sharp) ship prebuilt binaries as optional dependencies, and
# the SDK workspace's own build needs TypeScript, a development dependency the server never loads.
COPY package.json package-lock.json .npmrc ./
COPY sdk/package.json sdk/
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund
COPY . .
# dist/<fingerprint of the sources>: bin/etax.js finds it and never builds at run time.
RUN npm run build
# A migrated embedded database once: it proves the build starts, and leaves the template every
# new embedded DATA_DIR is copied from in node_modules/.cache, which the runtime user cannot
# write, only read: PostgreSQL makes its files readable by their owner alone.
RUN dir="$(mktemp -d)" && DATA_DIR="$dir" node bin/etax.js migrate && rm -rf "$dir" \
  && chmod -R a+rX node_modules/.cache

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/data
WORKDIR /app
# Owned by root and read-only to the server: only DATA_DIR is its to write.
COPY --from=build /app /app
RUN mkdir -p /data && chown 1000:1000 /data
# The node user of the base image, by number so that a runtime can tell it is not root.
USER 1000:1000
VOLUME ["/data"]
EXPOSE 8080
# /readyz: the database answers and every migration is applied. Node's fetch, as the slim image
# has no curl.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "bin/etax.js", "serve"]
