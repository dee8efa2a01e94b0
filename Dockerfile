# syntax=docker/dockerfile:1.7
# socialgate's container image. Two targets:
#   docker build -t socialgate .                                    the service (sandbox by default)
#   docker build --target aiograpi -t socialgate:aiograpi .         with Python and aiograpi from PyPI
#   docker build --target aiograpi --build-arg AIOGRAPI_VERSION=1.12.13 ...   another supported version
# Stages are ordered so that a source change rebuilds only `build` and the final copy of dist/:
# the compilers, `npm ci` and the production prune are cached while package-lock.json is unchanged.
# Behind a TLS-inspecting proxy, give the build its CA bundle as a secret (used by npm and pip
# during the build, never stored in a layer):
#   docker build --secret id=ca,src=/etc/ssl/certs/ca-certificates.crt .
ARG NODE_IMAGE=node:20-bookworm-slim

# ---- deps: every dependency, the SQLite driver compiled against the image's own Node headers
FROM ${NODE_IMAGE} AS deps
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# Scripts are skipped (the root `prepare` builds from sources that are not copied yet), then the one
# dependency that needs its install script is rebuilt; nodedir: no header download from nodejs.org.
RUN --mount=type=cache,target=/root/.npm,sharing=locked \
    --mount=type=secret,id=ca \
    if [ -s /run/secrets/ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca; fi; \
    npm ci --ignore-scripts --no-audit --no-fund \
 && npm_config_nodedir=/usr/local npm rebuild sqlite3

# ---- prod-deps: the same tree without dev dependencies (the runtime's node_modules), and without the
# SQLite driver's compiler output and sources (21 MB) beside the one library it loads
FROM deps AS prod-deps
RUN npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 && rm -rf node_modules/sqlite3/build/Release/obj node_modules/sqlite3/build/Release/obj.target node_modules/sqlite3/deps

# ---- build: compile TypeScript, cache the manifest and validators, build the console
FROM deps AS build
# the sources .dockerignore lets through (no tests, benches, docs or deployment files): one layer
COPY . .
RUN npm run build

# ---- runtime: production dependencies, the compiled service and what it reads at run time
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8000 SOCIALGATE_DATA_DIR=/data
WORKDIR /app
RUN mkdir -p /data && chown node:node /data && chmod 0700 /data
COPY --from=prod-deps /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY manifest ./manifest
COPY adapters/upstream/aiograpi/*.py adapters/upstream/aiograpi/*.json ./adapters/upstream/aiograpi/
COPY bin/socialgate.js ./bin/
COPY --from=build /app/dist ./dist
# The data folder holds the session store and, unless SOCIALGATE_SESSION_KEY or
# SOCIALGATE_SESSION_KEY_FILE names a key, the key file made at first start: keep it on a volume.
VOLUME ["/data"]
USER node
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8000)+'/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "bin/socialgate.js", "serve"]
# VERSION is the release version (CHANGELOG.md, Versioning); the API version is the specification's.
ARG VERSION=unreleased
ARG GIT_SHA=unknown
ENV SOCIALGATE_GIT_SHA=${GIT_SHA}
LABEL org.opencontainers.image.title="socialgate" \
      org.opencontainers.image.description="REST service over the aiograpi client library (sandbox upstream by default)" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.version="${VERSION}" \
      io.socialgate.api-version="6.0.0" \
      org.opencontainers.image.revision="${GIT_SHA}" \
      org.opencontainers.image.base.name="docker.io/library/node:20-bookworm-slim"

# ---- aiograpi: the real library in a virtual environment, the upstream set to it
FROM runtime AS aiograpi
USER root
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-venv \
 && rm -rf /var/lib/apt/lists/* \
 && python3 -m venv /opt/aiograpi
ARG AIOGRAPI_VERSION=1.0.9
# the package index pip installs from (a private mirror; only during the build)
ARG PIP_INDEX_URL=https://pypi.org/simple
RUN --mount=type=cache,target=/root/.cache/pip,sharing=locked \
    --mount=type=secret,id=ca \
    if [ -s /run/secrets/ca ]; then export PIP_CERT=/run/secrets/ca; fi; \
    /opt/aiograpi/bin/pip install --disable-pip-version-check "aiograpi==${AIOGRAPI_VERSION}" \
 && /opt/aiograpi/bin/python -c "import aiograpi"
ENV SOCIALGATE_UPSTREAM=aiograpi \
    SOCIALGATE_PYTHON=/opt/aiograpi/bin/python
USER node
LABEL org.opencontainers.image.description="REST service over the aiograpi client library (aiograpi ${AIOGRAPI_VERSION})"

# The default target: the service on the sandbox (set SOCIALGATE_UPSTREAM=aiograpi only in the aiograpi image).
FROM runtime
