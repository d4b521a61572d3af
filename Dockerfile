# syntax=docker/dockerfile:1

# --- build: install everything, generate the Prisma client, compile TypeScript -----------------
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts ./scripts
COPY prisma ./prisma
COPY prisma.config.ts ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --ignore-scripts

# --- runtime: compiled code, production dependencies and migrations, as a non-root user --------
FROM node:20-bookworm-slim AS runtime
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
# The embedded database (used only when DATABASE_URL is unset) keeps its files here.
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
EXPOSE 3000
# Migrations are applied by the service itself at start, under an advisory lock, before it listens.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--enable-source-maps", "dist/main.js"]
