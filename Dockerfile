# wright in a container: the binary, Debian's Chromium and Python 3. Used by
# the bench manifests under deploy/; build with `docker build -t wright .`.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -o /out/wright ./cmd/wright

FROM debian:bookworm-slim
# bubblewrap is the sandbox of the model's processes (env.sandbox). It needs
# user namespaces, which a container's default seccomp profile may refuse:
# then wright runs without it and `wright doctor` prints why.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      chromium python3 ca-certificates bubblewrap fonts-dejavu-core \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/wright /usr/local/bin/wright
COPY deploy/shard.sh /usr/local/bin/wright-shard
RUN useradd --create-home wright
USER wright
WORKDIR /home/wright
ENV WRIGHT_BROWSER=/usr/bin/chromium
ENTRYPOINT ["wright"]
