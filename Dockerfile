# cardapio as a container image: one static binary on an empty base.
#
#   docker build -t cardapio .
#   docker run --rm -v "$PWD:/work" --user "$(id -u):$(id -g)" cardapio check model.yaml
#
# The build stage compiles without cgo, so the binary links nothing of
# the system (no libc, no loader): the ci package's tests build it with
# this file's own command and flags, check it is static and run it with
# an empty environment in an empty root. The final image holds the binary
# and the CA certificates, which only --aws (HTTPS to AWS) reads;
# everything else cardapio does (check, cost, budget and load on the
# embedded engine, generate, init) needs no file of the system.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath -ldflags="-s -w -buildid=" -o /out/cardapio ./cmd/cardapio

FROM scratch
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/cardapio /cardapio
WORKDIR /work
USER 65532:65532
ENTRYPOINT ["/cardapio"]
CMD ["--help"]
