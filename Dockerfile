# syntax=docker/dockerfile:1
# One image for all three roles: `den manager`, `den server`, `den gateway` (the Deployment's args).

# --- build: compile TypeScript, then keep only production dependencies -------------------------
FROM node:24-bookworm-slim AS build
# npm ci's postinstall (scripts/build-native-addons.js) compiles the native addons from source.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts ./scripts
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build \
 && rm -rf build/test \
 # Styles and browser scripts (TypeScript, bundled by esbuild when den server starts) are read
 # at run time beside the compiled templates.
 && if [ -d web ]; then find web -type f \( ! -name '*.ts' -o -path 'web/scripts/*' \) -exec cp --parents {} build/ \; ; fi \
 && npm prune --omit=dev --no-audit --no-fund

# --- runtime: no compilers, no dev dependencies, no root ----------------------------------------
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/build ./build
# 65532 matches runAsUser/runAsGroup/fsGroup of the install chart's Deployments.
USER 65532:65532
EXPOSE 2222 8080 8081 9443
ENTRYPOINT ["node", "build/cli/den.js"]
