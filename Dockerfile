# One image for the MCP server replicas and the offline TomTom upstream.
#   docker build -t tomtom-mcp-apps .
#   docker run -p 8000:8000 tomtom-mcp-apps          # keyless: built-in offline upstream
#   docker run -p 8000:8000 -e TOMTOM_API_KEY=... tomtom-mcp-apps
FROM python:3.11-slim

# NUMBA_CPU_NAME=generic compiles the kernels for any x86-64, so the cache built
# here is used on whatever node runs the image instead of being recompiled at
# start-up (docs/operations.md).
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    NUMBA_CACHE_DIR=/var/cache/numba \
    NUMBA_CPU_NAME=generic \
    LOG_FORMAT=json

RUN groupadd --system --gid 10001 app \
    && useradd --system --uid 10001 --gid app --create-home --home-dir /home/app \
        --shell /usr/sbin/nologin app

WORKDIR /src
COPY pyproject.toml README.md ./
COPY tomtom_mcp_apps ./tomtom_mcp_apps
COPY server ./server
COPY fitting ./fitting
COPY widgets ./widgets
# Install, then compile every numba kernel once (from /, so the installed copy is
# the one compiled) into NUMBA_CACHE_DIR. The app user owns the cache: numba
# uses a cache directory only if it can write to it, else it compiles again.
RUN pip install . \
    && cd / && rm -rf /src \
    && mkdir -p "$NUMBA_CACHE_DIR" \
    && python -c "import tomtom_mcp_apps.fitting; tomtom_mcp_apps.fitting.warm_up()" \
    && chown -R app:app "$NUMBA_CACHE_DIR"

USER app
WORKDIR /home/app
EXPOSE 8000

# /health answers 503 until the fitting pool is warm, 200 after.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=2)"]

CMD ["tomtom-mcp-apps", "serve", "--host", "0.0.0.0", "--port", "8000"]
