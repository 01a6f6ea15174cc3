# The house's everyday commands. `make fast` is the loop to run while editing: all pure code and one AppTest
# run of every page (README, "Test it", has its time); `make test` is the full suite (real Chromium included).
# Both run on two pytest-xdist workers, as CI does.
PYTHON ?= python

.PHONY: fast test run lint

fast:
	$(PYTHON) -m pytest -n 2 -m "not slow and not browser"

test:
	$(PYTHON) -m pytest -n 2

run:
	streamlit run app.py

lint:
	ruff check .
	ruff format --check .
