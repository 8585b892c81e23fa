# The shoal binary: coordinator, worker, gen and bench in one image.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -o /out/shoal ./cmd/shoal

FROM debian:bookworm-slim
RUN useradd --system --uid 10001 shoal
COPY --from=build /out/shoal /usr/local/bin/shoal
USER shoal
ENTRYPOINT ["/usr/local/bin/shoal"]
