# make demo   set up everything on a fresh machine, build, run the main example (examples/train_digits.py)
# make test   set up everything, build, run the C++ (ctest) and Python (pytest) tests
# make bench  also installs PyTorch, runs bench/ side by side and rewrites docs/PERF.md
SHELL := /bin/bash
BUILD ?= build
VENV ?= .venv
PY := $(VENV)/bin/python
JOBS ?= $(shell nproc)
APT_PACKAGES := cmake ninja-build g++ ccache libopenblas-dev libdnnl-dev catch2 nlohmann-json3-dev python3-venv
CMAKE_FLAGS ?=

.PHONY: all deps venv build test test-cpp test-python demo bench clean

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

clean:
	rm -rf $(BUILD) python/ember/_C*.so
