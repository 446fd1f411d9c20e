# MLPerf Inference in Go. `make run` and `make test` work on a fresh Debian machine.
SHELL := /bin/bash
GO ?= go
DEPS := $(CURDIR)/.deps
ORT_LIB := $(DEPS)/onnxruntime/libonnxruntime.so.1
BIN := $(CURDIR)/bin/mlperf
export ONNXRUNTIME_SHARED_LIBRARY_PATH ?= $(ORT_LIB)
export MLPERF_DEPS ?= $(DEPS)

.PHONY: setup setup-gpu build test run bench bench-loadgen lint fmt clean mutate

## setup: install everything the project needs (idempotent); CPU only,
## unless MLPERF_GPU=1 (then also what setup-gpu installs)
setup:
	@bash scripts/setup.sh "$(DEPS)"

## setup-gpu: setup plus ONNX Runtime's CUDA and TensorRT execution
## providers (about 180 MB from npm, sha256-checked) for --backend cuda|tensorrt
setup-gpu:
	@MLPERF_GPU=1 bash scripts/setup.sh "$(DEPS)"

# REVISION is the source's git revision (+modified with uncommitted
# changes), stamped into the binary for `mlperf version` where the Go
# toolchain does not stamp it (a git worktree, GOFLAGS=-buildvcs=false).
REVISION := $(shell r=$$(git rev-parse HEAD 2>/dev/null) && { git diff --quiet HEAD 2>/dev/null || r="$$r+modified"; echo "$$r"; })

## build: the mlperf binary in bin/
build:
	$(GO) build -buildvcs=auto -ldflags "-X main.revision=$(REVISION)" -o $(BIN) ./cmd/mlperf

## test: set-up, vet, and every test with the race detector; prints each
## skipped test with its reason and the skip count (full log: out/test.log)
test: setup
	$(GO) vet ./...
	@GO="$(GO)" bash scripts/test.sh

## run: a real benchmark end to end on the built-in synthetic model and data
run: setup build
	@bash scripts/run.sh "$(BIN)"

## bench: Go benchmarks and the loadgen figures beside the C++ LoadGen's
bench: setup build
	@bash scripts/bench.sh "$(BIN)"

## mutate: mutation testing, one package at a time (not in CI: slow). The
## per-package reports go to docs/mutation/. Example:
##   make mutate PKG=./models/dlrm MUTATE_FLAGS='-sample 60 -run TestPredict'
mutate:
	@test -n "$(PKG)" || { echo "make mutate: set PKG, e.g. PKG=./harness"; exit 2; }
	$(GO) run ./cmd/mutate $(MUTATE_FLAGS) $(PKG)

## bench-loadgen: the Server issuer beside the C++ LoadGen 6.0.17 (built from a
## checkout of mlcommons/inference beside the repository), quiet and under a CPU hog
bench-loadgen: build
	@bash scripts/loadgen-vs-cpp.sh "$(BIN)"

## lint: gofmt, go vet, and deadcode (functions the binary never reaches,
## less a list of test-only helpers: scripts/deadcode-allow.txt)
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	@GO="$(GO)" bash scripts/deadcode.sh

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin out
