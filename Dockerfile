# The shoal binary: coordinator, worker, gen and bench in one image, built
# from source on machines that can pull the Go and Debian images. Without
# a registry, deploy/images.sh builds the same image from a binary built on
# the host (deploy/images/Dockerfile.shoal).
ARG GO_IMAGE=golang:1.26-bookworm
ARG BASE_IMAGE=debian:bookworm-slim

FROM ${GO_IMAGE} AS build
ARG VERSION=dev
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/shoal ./cmd/shoal

FROM ${BASE_IMAGE}
ARG VERSION=dev
LABEL org.opencontainers.image.title="shoal" org.opencontainers.image.version="${VERSION}"
# /var/lib/shoal/certs belongs to shoal so that a fresh named volume mounted
# there (the compose cluster's certs) is writable by `shoal certs`.
RUN useradd --system --uid 10001 shoal && install -d -o shoal -m 0755 /var/lib/shoal/certs
COPY --from=build /out/shoal /usr/local/bin/shoal
USER shoal
ENTRYPOINT ["/usr/local/bin/shoal"]
