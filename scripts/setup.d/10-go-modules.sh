#!/usr/bin/env bash
# Go modules (the build would fetch them too; doing it here makes failures early and clear).
set -euo pipefail
go mod download
