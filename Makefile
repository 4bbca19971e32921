# make demo   set up everything on a fresh machine, build, run the main example (examples/train_digits.py)
# make test   set up everything, build, run the C++ (ctest) and Python (pytest) tests
# make bench  also installs PyTorch, runs bench/ side by side and rewrites docs/PERF.md
# make fuzz   builds the model-file fuzz harness with clang (ASan, UBSan, libFuzzer) and runs it
#             for FUZZ_SECONDS (docs/RELIABILITY.md); not part of make test
# make sanitize  builds a second tree (build-san/) with ASan + UBSan and runs the C++ and Python
#             suites against it; any sanitizer report fails it (docs/RELIABILITY.md); not part of make test
# make fuzz-checkpoint  fuzzes ember.load(weights_only=True) with damaged PyTorch checkpoints
#             for FUZZ_CHECKPOINT_SECONDS (scripts/fuzz_checkpoint.py, docs/serialization.md)
SHELL := /bin/bash
BUILD ?= build
VENV ?= .venv
PY := $(VENV)/bin/python
JOBS ?= $(shell nproc)
APT_PACKAGES := cmake ninja-build g++ ccache libopenblas-dev libdnnl-dev catch2 nlohmann-json3-dev libgloo-dev python3-venv
CMAKE_FLAGS ?=

.PHONY: all deps venv build test test-cpp test-python demo bench sanitize fuzz fuzz-checkpoint clean

all: build

# Debian packages: installed only when missing (needs root, as on the project's machines).
deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=$$( [ $$(id -u) -eq 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

$(VENV)/.ready: requirements-dev.txt
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements-dev.txt
	touch $@

venv: $(VENV)/.ready

build: deps venv
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE=$(abspath $(PY)) $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

test-cpp: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-python: build
	PYTHONPATH=python $(PY) -m pytest test/python -q

test: test-cpp test-python

demo: build
	PYTHONPATH=python $(PY) examples/train_digits.py

bench: build
	$(PY) -m pip install -q torch
	PYTHONPATH=python $(PY) bench/run_all.py --write docs/PERF.md
	PYTHONPATH=python $(PY) bench/deploy_latency.py --write docs/PERF.md

SAN_BUILD ?= build-san
sanitize: deps venv
	cmake -S . -B $(SAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
	  -DEMBER_SANITIZE=ON -DEMBER_CUDA=OFF -DEMBER_BUILD_EXAMPLES=OFF \
	  -DEMBER_PYTHON_PACKAGE_DIR=$(abspath $(SAN_BUILD))/python/ember -DPython3_EXECUTABLE=$(abspath $(PY))
	cmake --build $(SAN_BUILD) -j $(JOBS)
	PY=$(PY) bash scripts/sanitize_run.sh $(SAN_BUILD)

FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 600
FUZZ_CXX ?= clang++-14
FUZZ_JOBS ?= $(JOBS)
fuzz:
	cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=$(FUZZ_CXX) \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
	  -DEMBER_FUZZ=ON -DEMBER_CUDA=OFF -DEMBER_BUILD_PYTHON=OFF \
	  -DEMBER_BUILD_TESTS=OFF -DEMBER_BUILD_EXAMPLES=OFF
	cmake --build $(FUZZ_BUILD) -j $(FUZZ_JOBS) --target fuzz_model_file make_fuzz_corpus
	mkdir -p $(FUZZ_BUILD)/seeds $(FUZZ_BUILD)/corpus $(FUZZ_BUILD)/artifacts
	$(FUZZ_BUILD)/make_fuzz_corpus $(FUZZ_BUILD)/seeds
	# The dictionary: the format's tokens and every op name of the op table.
	{ cat test/fuzz/model_file.dict; sed -nE 's/^func = "(\w+)\(.*/"\1"/p' lib/dispatch/schema/*.toml; } \
	  > $(FUZZ_BUILD)/model_file.dict
	ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  $(FUZZ_BUILD)/fuzz_model_file -max_total_time=$(FUZZ_SECONDS) \
	  -timeout=10 -rss_limit_mb=4096 -max_len=65536 -dict=$(FUZZ_BUILD)/model_file.dict \
	  -artifact_prefix=$(FUZZ_BUILD)/artifacts/ -print_final_stats=1 \
	  $(FUZZ_BUILD)/corpus $(FUZZ_BUILD)/seeds

FUZZ_CHECKPOINT_SECONDS ?= 1800
fuzz-checkpoint: build
	PYTHONPATH=python $(PY) scripts/fuzz_checkpoint.py --seconds $(FUZZ_CHECKPOINT_SECONDS) \
	  --artifacts $(BUILD)/fuzz-checkpoint

clean:
	rm -rf $(BUILD) python/ember/_C*.so
