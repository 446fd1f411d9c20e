#!/bin/sh
# Regenerates remote/kserve/pb/*.pb.go from grpc_predict_v2.proto (the Open
# Inference Protocol's gRPC API, from github.com/kserve/kserve).
#
# Needs protoc (3.21 or later) and the two Go plugins at the versions that
# match go.mod's google.golang.org/protobuf and google.golang.org/grpc:
#   GOBIN=$HOME/go/bin go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.34.2
#   GOBIN=$HOME/go/bin go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.5.1
# (set PLUGINS to the folder holding them if it is not on PATH).
set -eu
cd "$(dirname "$0")/../remote/kserve/pb"
if [ -n "${PLUGINS:-}" ]; then PATH="$PLUGINS:$PATH"; fi
pkg=github.com/mlperf-go/inference/remote/kserve/pb
protoc --proto_path=. \
	--go_out=. --go_opt=paths=source_relative --go_opt=Mgrpc_predict_v2.proto=$pkg \
	--go-grpc_out=. --go-grpc_opt=paths=source_relative --go-grpc_opt=Mgrpc_predict_v2.proto=$pkg \
	grpc_predict_v2.proto
