# Multi-stage: build with every dependency, run with production dependencies only.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY sandbox ./sandbox
RUN npx tsc -p tsconfig.build.json
# The drop-in checkout's page and scripts are served as they are, beside the code that serves them.
RUN cp -r src/embed/public dist/src/embed/public

FROM node:24-bookworm-slim AS runtime
# tini is PID 1: it forwards SIGTERM to node, so the drain runs and the exit code is node's.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
# The product only: the simulator (dist/sandbox) is built to type-check the sandbox-mode entry and
# left behind, so production images cannot run it (configuration refuses sandbox mode there too).
COPY --from=build /app/dist/src ./dist/src
USER node
ENV PORT=3000
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["/usr/bin/tini", "--"]
# Node 24 sizes the young generation from the machine's memory (64 MB semi-spaces on a large host,
# over 100 MB of RSS that a request's short-lived objects never need); 16 MB is Node 20's size.
CMD ["node", "--max-semi-space-size=16", "dist/src/main.js"]
