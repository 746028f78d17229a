# syntax=docker/dockerfile:1
# Build stage: install everything, build the browser assets, then keep production dependencies only.
FROM node:24-bookworm-slim AS build
WORKDIR /app
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY esbuild.config.mjs esbuild.server.mjs tsconfig.json ./
COPY src ./src
COPY components ./components
COPY views ./views
COPY widgets ./widgets
COPY migrations ./migrations
COPY public ./public
# The image's own node runs the app: the Node 24 that npm ci brings for older machines (node-linux-*) is dropped.
COPY knexfile.ts ./
# The server (build/server.js, with its source map) and the operators' commands (build/cli) compiled once, so the
# image starts plain JavaScript and `docker compose exec app npm run capacity ...` starts fast.
RUN NODE_ENV=production npm run build && npm run build:server && npm run build:cli && npm prune --omit=dev \
  && rm -rf node_modules/node-linux-* node_modules/.bin/node

# Runtime stage: no compilers, no dev dependencies, a non-root user.
FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/public ./public
COPY --from=build /app/build ./build
COPY package.json tsconfig.json ./
COPY src ./src
COPY components ./components
COPY views ./views
COPY widgets ./widgets
COPY migrations ./migrations
COPY knexfile.ts ./
RUN mkdir -p var && chown node:node var
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# `npm run serve`: the compiled server (no tsx, nothing compiled at start; stack traces through the source map).
# Migrations run at start (waiting while another instance migrates; migrations/*.ts are loaded by Node itself, which
# strips their types); SIGTERM drains in-flight requests and exits 0. The release step `npm run migrate` runs the
# compiled command (build/cli, compose.yaml's migrate service). METRICS_PORT, when set, serves /metrics on that port:
# never published; Prometheus reaches it on the compose network (compose.yaml's monitoring profile).
CMD ["node", "--enable-source-maps", "build/server.js"]
