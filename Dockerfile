# syntax=docker/dockerfile:1
# CI replays this file without a Docker engine (scripts/container/replay.ts): keep RUN paths
# relative to WORKDIR, and teach the replay any instruction it does not know yet.

# --- build: install everything, generate the Prisma client, compile TypeScript -----------------
# Node 26 is the current LTS line (docs/operations.md#container).
FROM node:26.10.0-trixie-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# What `npm ci` runs itself: the postinstall generates the Prisma client through this wrapper. The
# other scripts come after the install, so that changing one does not install everything again.
COPY scripts/prisma-offline.js ./scripts/
COPY prisma ./prisma
COPY prisma.config.ts ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts/container/never-loaded.ts ./scripts/container/
# never-loaded.ts removes what production never loads (the query compilers of the databases it
# does not use, declaration files), before the prune takes tsx away. --omit=optional as well: npm
# keeps the Prisma CLI and TypeScript, dev dependencies here, as optional peers of @prisma/client
# otherwise. The empty .data is the runtime's data folder.
RUN npm run build \
  && node --import tsx scripts/container/never-loaded.ts dist node_modules \
  && npm prune --omit=dev --omit=optional --ignore-scripts \
  && mkdir .data

# --- runtime: compiled code, production dependencies and migrations, as a non-root user --------
FROM node:26.10.0-trixie-slim AS runtime
# package.json's fields, as the replay and tests/unit/container/dockerfile.test.ts check.
LABEL org.opencontainers.image.title="time-navigation-service" \
      org.opencontainers.image.description="HTTP/JSON service for moving through time: travels, anchors, timelines, items, events and paradox checks." \
      org.opencontainers.image.version="0.1.0" \
      org.opencontainers.image.licenses="UNLICENSED"
# WEB_CONCURRENCY: worker processes (about one per core the container may use; more than 1 needs DATABASE_URL).
# The V8 old space bounded, and large allocations handed back, as `npm start` does (.env.example,
# docs/operations.md#memory).
ENV NODE_ENV=production \
    NODE_OPTIONS="--max-old-space-size=128 --max-semi-space-size=16" \
    MALLOC_MMAP_THRESHOLD_=131072 \
    PORT=3000 \
    HOST=0.0.0.0 \
    WEB_CONCURRENCY=1
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/prisma ./prisma
# The embedded database keeps its files here: used only when DATABASE_URL is unset and
# ACCEPT_EMBEDDED_DATABASE=on (it does not survive a power loss; docs/operations.md#power-loss).
COPY --from=build --chown=node:node /app/.data ./.data
# A volume, so that the data outlives the container and stays writable under a read-only root
# (docker-compose.yml); a new volume starts owned by `node`, as the folder is.
VOLUME ["/app/.data"]
USER node
EXPOSE 3000
# METRICS_PORT's usual port, when set (off by default; docs/operations.md, "Metrics").
EXPOSE 9464
# Migrations are applied by the service itself at start, under an advisory lock, before it listens.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--enable-source-maps", "dist/main.js"]
