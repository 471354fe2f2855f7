# The two commands the README promises: `make run` and `make test`.
.PHONY: install build run test lint bench

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

install: node_modules/.installed

build: install
	npx tsc -b

# The whole service on this machine: embedded PostgreSQL in .data/ (or DATABASE_URL),
# Cloud API on :8080 under /api/v1, Gateway on :8081. Ctrl-C stops it; data stays.
run: build
	node --enable-source-maps local/dist/main.js

test: install
	npx vitest run

lint: install
	npx eslint .

# Micro-benchmarks (vitest bench) print figures; nothing here is asserted.
bench: install
	npx vitest bench --run
