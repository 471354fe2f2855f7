# The two commands the README promises: `make run` and `make test`.
.PHONY: install build run test typecheck lint bench

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

install: node_modules/.installed

build: install
	npx tsc -b

test: install
	npx vitest run

lint: install
	npx eslint .

# Micro-benchmarks (vitest bench) print figures; nothing here is asserted.
bench: install
	npx vitest bench --run
