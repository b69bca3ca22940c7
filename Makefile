# Entry points; every target runs the project's own Node 24 (a dev dependency), never the system's.
NODE := node_modules/.bin/node
# V8's code cache for every make target, entry files included (a script can only turn it on after its own file).
export NODE_COMPILE_CACHE ?= $(CURDIR)/node_modules/.cache/node-compile-cache
# The repository to work on: fingerprint and check default to this checkout, the dev-box targets to the example.
REPO ?=
ARGS ?=

.PHONY: demo test fingerprint bench typecheck tools

# tools first: on a fresh Debian machine npm itself may be what is missing
demo: TOOLS_FOR = demo
demo: tools node_modules/.installed ## Fingerprint table, then the pull-deployment loop on this machine (Docker, Compose, local registry)
	$(NODE) scripts/demo.ts $(ARGS)

.PHONY: demo-chart
demo-chart: TOOLS_FOR = demo
demo-chart: tools node_modules/.installed ## A chart host on a SIMULATED cluster (Kubernetes API test server, Helm simulator): commit channel, signed chart release, unchanged tick
	$(NODE) test/demo/chart-demo.ts

.PHONY: demo-devbox
demo-devbox: TOOLS_FOR = devbox
demo-devbox: tools node_modules/.installed ## The dev loop on a SIMULATED dev box: deliver, change a file, takeover plan/start, hand back
	$(NODE) test/demo/devbox-demo.ts

# The installer and the npm install announce what they do and why: their command lines would only repeat it.
tools: ## Install and start what the demo and tests need (Debian, root; the list: scripts/install-tools.tsv); elsewhere list it and exit 2
	@scripts/install-tools.sh $(or $(TOOLS_FOR),test)

test: node_modules/.installed ## Type-check, unit tests, end-to-end tests
	npm test --silent

fingerprint: node_modules/.installed ## make fingerprint REPO=dir ARGS='--json'
	$(NODE) scripts/fingerprint.ts --repo $(or $(REPO),.) $(ARGS)

bench: node_modules/.installed ## Benchmarks, printed as ratios to baselines measured in the same run
	npm run bench --silent

typecheck: node_modules/.installed
	npm run typecheck --silent

.PHONY: mutation
mutation: node_modules/.installed ## Mutation testing of the safety decisions (Stryker, unit tests only): score per file, fails below 95% (ARGS=--force reruns every mutant)
	npx stryker run $(ARGS)
	$(NODE) test/mutation/check-scores.ts

node_modules/.installed: package.json package-lock.json dagger/package.json dagger/package-lock.json
	@scripts/install-node-modules.sh

.PHONY: check check-shape
check: check-shape ## This repository's formatting and import rules, then the catalogue against Dockerfiles and manifests: make check REPO=dir ARGS='--json'
	$(NODE) scripts/check-platform-gitops.ts --repo $(or $(REPO),.) $(ARGS)

check-shape: node_modules/.installed ## Formatting (Biome) and the library's import rules (.dependency-cruiser.mjs, docs/code-map.md) of this repository
	npm run --silent format:check
	npm run --silent imports:check

.PHONY: test-cluster
test-cluster: node_modules/.installed ## Tests of the Kube port, the Kubernetes API test server, sync windows and the Argo CD simulator
	npx vitest run --project unit test/unit/ports test/unit/kube-api-server test/unit/argocd test/unit/argocd-simulator
	npx vitest run --project e2e test/e2e/argocd-simulator.test.ts test/e2e/kube-api-server-kubectl.test.ts

.PHONY: promote plan
promote: node_modules/.installed ## make promote ARGS='--repo R --env staging --release v1.2.3 --key promote.key'
	$(NODE) scripts/promote.ts $(ARGS)

plan: node_modules/.installed ## Host plan from HEPHAESTUS_* settings: make plan ARGS=--json
	$(NODE) scripts/reconcile-deployment.ts --plan $(ARGS)

TARGET ?= local
.PHONY: reconcile
reconcile: node_modules/.installed ## Deliver HEAD of REPO to a dev box: make reconcile TARGET=local ARGS='--dry-run'
	$(NODE) scripts/devbox.ts reconcile --target $(TARGET) --repo $(or $(REPO),examples/platform) $(ARGS)

.PHONY: deploy
deploy: node_modules/.installed ## Set up or update a dev box: cluster layers (Ansible), AAI, provider tokens, then the delivery: make deploy TARGET=local ARGS='--check'
	$(NODE) scripts/devbox.ts deploy --target $(TARGET) --repo $(or $(REPO),examples/platform) $(ARGS)

.PHONY: takeover
takeover: node_modules/.installed ## Take over images on a dev box: make takeover TARGET=local ARGS='plan --explain' (or 'start api', 'status', 'release')
	$(NODE) scripts/takeover.ts $(or $(ARGS),plan) --target $(TARGET) --repo $(or $(REPO),examples/platform)

.PHONY: help-texts dagger-functions test-dagger
help-texts: node_modules/.installed ## Save every command's --help as cmd-ts renders it (scripts/help/, docs/cli-help.md): after changing a command's options
	$(NODE) scripts/sync-help.ts

dagger-functions: node_modules/.installed ## The Dagger module's functions, read from dagger/src (no engine needed)
	$(NODE) dagger/list-functions.ts

test-dagger: node_modules/.installed ## The Dagger module through the real SDK against the engine simulator (Docker, local registry)
	npx vitest run --project e2e test/e2e/dagger-runtime.test.ts test/e2e/dagger-publish.test.ts test/e2e/dagger-simulator.test.ts

# The takeover actions `make tilt` shows as buttons; each one also works on its own.
TARGETS ?= targets
TAKEOVER := $(NODE) scripts/takeover.ts
TAKEOVER_ARGS = --target $(TARGET) --targets $(TARGETS) --repo $(or $(REPO),examples/platform)
.PHONY: tilt takeover-start takeover-plan takeover-handback takeover-status takeover-logs
tilt: node_modules/.installed ## Takeover dashboard (Tiltfile): saved files invoke takeover; hand-back, delivery, status, logs are buttons
	@command -v tilt >/dev/null || { echo "make tilt: tilt is not installed (https://docs.tilt.dev/install.html); the buttons are make targets: takeover-handback, reconcile, takeover-status, takeover-logs" >&2; exit 2; }
	TARGET=$(TARGET) TARGETS=$(TARGETS) REPO=$(REPO) tilt up

takeover-start: node_modules/.installed ## Take over images and follow saved files: make takeover-start ARGS='api'
	$(TAKEOVER) start $(TAKEOVER_ARGS) $(ARGS)

takeover-plan: node_modules/.installed ## What the working tree changes against the receipt (Tilt runs it on every save)
	$(TAKEOVER) plan $(TAKEOVER_ARGS) $(ARGS)

takeover-handback: node_modules/.installed ## Hand back: stops the running takeover start (or releases after a crash)
	$(TAKEOVER) stop $(TAKEOVER_ARGS)

takeover-status: node_modules/.installed ## Lease, windows, local runtimes, replacements, traffic agents
	$(TAKEOVER) status $(TAKEOVER_ARGS) $(ARGS)

takeover-logs: node_modules/.installed ## The last lines of every local runtime's log: make takeover-logs ARGS='--lines 100'
	$(TAKEOVER) logs $(TAKEOVER_ARGS) $(ARGS)
