"""The suite's two workers keep their groups (``tests/conftest.py``): every test of the one shared server on one
worker, each other file whole on one worker. pytest-xdist groups by rewriting each test's id (``<id>@<group>``);
where a pytest release does not let it, every group is split silently, each worker starts its own server and
Chromium, and the pages the phone and accessibility tests share are drawn twice."""

from __future__ import annotations

import os

import pytest


def test_this_test_runs_under_its_files_group(request):
    if "PYTEST_XDIST_WORKER" not in os.environ:
        pytest.skip("the groups exist on pytest-xdist's workers only (python -m pytest -n 2, as CI runs)")
    assert request.node.nodeid.endswith("@project/test_workers.py"), request.node.nodeid
