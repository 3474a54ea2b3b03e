# The two commands of the README, and the rest. Every target installs what it needs first,
# so `make run` and `make test` work on a fresh Debian machine, as root.

SHELL := /bin/bash
export PATH := $(PATH):/opt/swift/usr/bin

APT_PACKAGES := libsqlite3-dev libcurl4-openssl-dev zlib1g-dev libasound2-dev libsndfile1-dev libfftw3-dev
# The benchmarks' load generator and references; postgresql for the PostgreSQL cases (a private
# cluster started for the run, psql \copy the ingest reference); real speech (espeak-ng) and music
# (planetblupi-music-ogg) for the wire-size case.
BENCH_PACKAGES := wrk sox sqlite3 postgresql espeak-ng planetblupi-music-ogg
# The profiler of `make profile` (cpu-clock sampling works without hardware counters).
PROFILE_PACKAGES := linux-perf wrk
# Only for tests: sox is the independent meter the levels are checked against, chromium the
# browser check (chromium-driver and python3-selenium drive it through the public search form and
# the measuring page, whose fake microphone plays a WAV file),
# sqlite3 the shell the reliability suites count rows with, wrk for the benchmarks'
# smoke run, lame and mpg123 to make and independently decode the MP3 test files, sndfile-convert
# (sndfile-programs) to make an RF64 file, which sox cannot write, opus-tools to make and decode
# an Opus file, postgresql for the private clusters the store and deployment suites run on, and
# nginx for the deployment recipe's end-to-end test (docs/deploy.md), planetblupi-music-ogg for
# real music (Ogg recordings) that a check-in is measured from, espeak-ng for the speech of the
# benchmarks' wire-size case, which the smoke test runs too, and of the browser's measuring test;
# openssl to make the deployment test's certificate, curl to ask nginx over HTTPS with it.
# festival (its kal voice), drascula-music and asterisk-prompt-it-menardi-wav (a recorded voice) are
# speech and music the sound-class model never trained on, which the tests check it on.
TEST_PACKAGES := sox chromium chromium-driver python3-selenium sqlite3 wrk lame mpg123 sndfile-programs opus-tools postgresql nginx planetblupi-music-ogg espeak-ng \
	festival festvox-kallpc16k drascula-music asterisk-prompt-it-menardi-wav openssl curl
# What `make train-classes` builds its corpus from (docs/sound-classes.md); it trains with PyTorch and numpy from PyPI.
CLASS_PACKAGES := sox espeak-ng flite festival festvox-kallpc16k alsa-utils planetblupi-music-ogg nexuiz-music drascula-music \
	ktuberling-data klettres-data asterisk-core-sounds-en-wav asterisk-core-sounds-es-wav asterisk-core-sounds-it-wav \
	asterisk-core-sounds-fr-wav asterisk-core-sounds-ru-wav asterisk-moh-opsound-wav wesnoth-1.16-music hedgewars-data \
	wesnoth-1.16-data warzone2100-music opus-tools fluidsynth fluid-soundfont-gm timgm6mb-soundfont \
	gcompris-qt-data colobot-common-sounds \
	festvox-us-slt-hts festvox-kdlpc16k festvox-italp16k festvox-czech-krb pingus-data extremetuxracer-data lincity-ng-data \
	frozen-bubble-data supertux-data \
	festvox-czech-machac festvox-suopuhe-mv festvox-itapc16k asterisk-prompt-es-co asterisk-prompt-fr-armelle freedroidrpg-data xmoto-data \
	sound-theme-freedesktop chromium-bsu-data \
	festvox-ru asterisk-prompt-it-menardi-wav singularity-music hyperrogue-music atanks-data lbreakout2-data \
	festvox-mr-nsk festival-mr festvox-te-nsk festival-te neverball-data ufoai-music \
	festvox-hi-nsk festival-hi gcin-voice marsshooter-data warmux-data heroes-sound-effects \
	codec2-examples wordwarvi-sound openarena-data openarena-088-data powermanga-data \
	megaglest-data naev-data solarwolf 0ad-data tuxtype-data kajongg unknown-horizons widelands-data minetest-data \
	festvox-ca-ona-hts festvox-czech-dita festvox-czech-ph festvox-suopuhe-lj tuxpaint-data bzflag-data mirrormagic-data \
	tuxpaint-stamps-default redeclipse-data tecnoballz-data fillets-ng-data fillets-ng-data-cs fillets-ng-data-nl \
	lugaru-data freeorion-data spacezero warzone2100-data nexuiz-data openclonk-data hannah-data \
	flight-of-the-amazon-queen libsox-fmt-mp3 freedink-data endless-sky-data ufoai-sound \
	transcriber pocketsphinx-testdata supertuxkart-data freeciv-data
PREFIX ?= /usr/local
SEEDS ?= 5
HOSTNAME ?= 127.0.0.1
PORT ?= 8080
DATABASE ?= hearclear.sqlite

.PHONY: run demo test bench profile build release install deps test-deps bench-deps clean train-classes judge-classes

# Installs the Debian packages of $(1) that are missing (apt-get update first); quiet when none are.
define install_missing
	@missing=""; for package in $(1); do \
		dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "Installing:$$missing"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	fi
	@command -v swift >/dev/null || { echo "swift is not on PATH (expected /opt/swift/usr/bin)"; exit 1; }
endef

deps:
	$(call install_missing,$(APT_PACKAGES))

test-deps:
	$(call install_missing,$(APT_PACKAGES) $(TEST_PACKAGES))

bench-deps:
	$(call install_missing,$(APT_PACKAGES) $(BENCH_PACKAGES))

build: deps
	swift build

## Start the server on the embedded SQLite default (./hearclear.sqlite, http://127.0.0.1:8080).
run: build
	@echo "Starting hearclear-server on http://$(HOSTNAME):$(PORT) with database $(DATABASE); Ctrl-C stops it."
	@echo "Public pages: http://$(HOSTNAME):$(PORT)/venues (find a venue; can you talk there?)."
	@echo "Admin pages: http://$(HOSTNAME):$(PORT)/admin (user admin), on when HEARCLEAR_ADMIN_PASSWORD is set:"
	@echo "    HEARCLEAR_ADMIN_PASSWORD=choose-one make run"
	@echo "A demo to look at: make demo (fills an empty $(DATABASE) with venues and check-ins)."
	.build/debug/hearclear-server serve --hostname $(HOSTNAME) --port $(PORT) --database $(DATABASE)

## Fill an empty database with the demo data, through the same ingest code as the API.
demo: build
	.build/debug/hearclear-server seed --demo --database $(DATABASE)

## The API fuzzer (schemathesis, from PyPI) in a virtual environment of its own.
SCHEMATHESIS_VERSION := 4.32.5
.venv/bin/schemathesis:
	python3 -m venv .venv
	.venv/bin/pip install --quiet schemathesis==$(SCHEMATHESIS_VERSION)

## Build and run every test.
# Three runs, one after the other: the in-process suites (the router, the store, the meter), then
# the end-to-end ones, whose servers, clients, nginx and browser would otherwise share the 2 cores
# with them and stretch an in-process request past the time limits it is tested against, then the
# real-time ones.
IN_PROCESS_TESTS := HearClearServerTests|HearClearCoreTests|HearClearClientTests|LevelMeterTests|BenchTests
# Last and alone, the browser measuring through its fake microphone: its audio runs in real time,
# and on a machine the other suites keep busy Chromium drops some of it.
REAL_TIME_TESTS := BrowserMeasureTests
# When a run fails, its failures are repeated last (scripts/test-log.sh), where a CI log's tail shows them.
# The store suites run on SQLite and on a private PostgreSQL cluster started for the run (a
# cluster that cannot start fails the run) and stopped after it, whatever the tests' outcome.
test: test-deps .venv/bin/schemathesis
	swift build --build-tests
	@set -e; cluster=$$(scripts/test-postgres.sh start); \
	status=0; export HEARCLEAR_TEST_POSTGRES=$${cluster#* }; \
	logs=.build/test-logs; rm -rf $$logs; \
	scripts/test-log.sh run $$logs/in-process.log --filter '$(IN_PROCESS_TESTS)' || status=$$?; \
	scripts/test-log.sh run $$logs/end-to-end.log --skip '$(IN_PROCESS_TESTS)|$(REAL_TIME_TESTS)' || status=$$?; \
	scripts/test-log.sh run $$logs/real-time.log --filter '$(REAL_TIME_TESTS)' || status=$$?; \
	scripts/test-postgres.sh stop $${cluster%% *}; \
	if [ $$status -ne 0 ]; then scripts/test-log.sh failures $$logs/in-process.log $$logs/end-to-end.log $$logs/real-time.log; fi; exit $$status

release: deps
	swift build -c release

## Every benchmark case against its reference, release build; rewrites docs/benchmarks.md.
bench: bench-deps
	swift build -c release
	mkdir -p .build/bench
	@set -e; cluster=$$(scripts/test-postgres.sh start); status=0; \
	.build/release/hearclear-bench --size full --work .build/bench/work --json .build/bench/results.json --markdown docs/benchmarks.md \
		--postgres $${cluster#* } || status=$$?; \
	scripts/test-postgres.sh stop $${cluster%% *}; exit $$status

## The speech and music model from scratch: corpus from Debian packages, features by the client,
## labels checked by a voice activity detector (silero-vad, training only), training with a fixed
## seed; rewrites the model resource and the figures of docs/sound-classes.md. judge-classes makes
## the same corpus and judges the shipped model on it instead, rewriting only the figures. With SEEDS
## (5 unless set; 0: none) judge-classes trains the shipped recipe with that many other seeds and
## reports their figures' range; train-classes trains its recipe and the replaced model's with that
## many seeds each and reports both.
train-classes judge-classes:
	$(call install_missing,$(APT_PACKAGES) $(CLASS_PACKAGES))
	swift build -c release --product hearclear
	python3 -m venv .build/train-classes-venv
	.build/train-classes-venv/bin/pip install --quiet torch==2.13.0+cpu numpy==2.4.6 silero-vad==6.2.3
	rm -rf .build/sound-classes
	.build/train-classes-venv/bin/python scripts/train-classes.py .build/release/hearclear .build/sound-classes --spread $(SEEDS) $(if $(filter judge-classes,$@),--judge)

## Where a /healthz request's time goes (perf, release build); docs/profiling.md reads its output.
profile:
	$(call install_missing,$(APT_PACKAGES) $(PROFILE_PACKAGES))
	swift build -c release
	scripts/profile-healthz.sh

## Install the release binaries with the resource bundles the server reads (migrations, OpenAPI document)
## and the HTTP library the client loads when it talks to a server.
install: release
	install -d $(PREFIX)/bin
	install -m 0755 .build/release/hearclear-server .build/release/hearclear .build/release/libHearClearTransport.so $(PREFIX)/bin/
	cp -R .build/release/*.resources $(PREFIX)/bin/
	install -d $(PREFIX)/share/hearclear
	cp -R Public $(PREFIX)/share/hearclear/

clean:
	rm -rf .build
