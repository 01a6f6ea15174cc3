"""Several replicas for a department: deploy/ and the same topology run here without Docker.

Docker is not available where this was written, so the compose file is checked for its structure: the services,
ports and environment it gives are the ones `python -m bench.replicas` runs (the same nginx.conf template, two app
replicas on the Dockerfile's port, PostgreSQL reached by every replica). The topology itself (Debian's nginx, two
`streamlit run` replicas, a throwaway PostgreSQL cluster) is started by the slow test, which kills one replica
mid-run.
"""

from __future__ import annotations

import concurrent.futures
import os
import re
import subprocess
import tempfile
from pathlib import Path

import pytest
import yaml

from bench import replicas
from tests.helpers import ROOT


def _compose() -> dict:
    return yaml.safe_load(replicas.COMPOSE.read_text())


def _apps(services: dict) -> dict:
    return {name: s for name, s in services.items() if isinstance(s, dict) and "build" in s}


def test_compose_builds_the_replicas_from_the_repository_dockerfile():
    services = _compose()["services"]
    apps = _apps(services)
    assert len(apps) >= 2, "at least two app replicas"
    port = re.search(r"--server\.port=(\d+)", (ROOT / "Dockerfile").read_text()).group(1)
    for app in apps.values():
        assert app["build"] == {"context": "..", "dockerfile": "Dockerfile"}
        assert (replicas.DEPLOY / app["build"]["context"] / app["build"]["dockerfile"]).resolve() == ROOT / "Dockerfile"
    upstream = services["nginx"]["environment"]["ATTENTION_LAB_REPLICAS"]
    assert re.findall(r"server ([\w.-]+:\d+);", upstream) == [f"{name}:{port}" for name in apps]
    assert set(services["nginx"]["depends_on"]) == set(apps)


def test_every_replica_reaches_the_compose_postgresql():
    services = _compose()["services"]
    db = services["db"]
    assert db["image"].startswith("postgres:")
    for name, app in _apps(services).items():
        url = app["environment"]["ATTENTION_LAB_DB_URL"]  # store/db.py's variable
        m = re.fullmatch(r"postgresql\+psycopg://(\w+):\$\{POSTGRES_PASSWORD[^}]*\}@db:5432/(\w+)", url)
        assert m, f"{name}: {url}"
        assert m.groups() == (db["environment"]["POSTGRES_USER"], db["environment"]["POSTGRES_DB"])
        assert app["depends_on"]["db"]["condition"] == "service_healthy"


def test_nginx_runs_the_template_the_local_topology_runs():
    nginx = _compose()["services"]["nginx"]
    mounts = {m.split(":")[0]: m.split(":")[1] for m in nginx["volumes"]}
    assert mounts["./nginx.conf"].startswith("/etc/nginx/templates/")  # the image's envsubst fills it
    assert (replicas.DEPLOY / "nginx.conf") == replicas.TEMPLATE
    used = set(re.findall(r"\$\{(\w+)\}", replicas.TEMPLATE.read_text()))
    assert used == set(replicas.PLACEHOLDERS) == set(nginx["environment"])
    text = replicas.render_template({k: str(v) for k, v in nginx["environment"].items()})
    assert "hash $attention_lab_route consistent;" in text  # sticky by nginx's cookie, not by address
    assert "ip_hash" not in text.split("upstream attention_lab", 1)[1].split("}", 1)[0]
    stream = text.split("location /_stcore/stream", 1)[1]
    assert "proxy_read_timeout" in stream
    assert "proxy_set_header Upgrade $http_upgrade;" in text


def test_the_local_rendering_is_a_valid_nginx_configuration():
    binary = replicas.nginx_binary()
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("nginx not found (apt-get install nginx)")
        pytest.skip("nginx not installed")
    with tempfile.TemporaryDirectory() as folder:
        values = {
            "ATTENTION_LAB_LISTEN": "127.0.0.1:1",
            "ATTENTION_LAB_ACCESS_LOG": f"{folder}/access.log",
            "ATTENTION_LAB_REPLICAS": "server 127.0.0.1:2; server 127.0.0.1:3;",
        }
        Path(folder, "attention_lab.conf").write_text(replicas.render_template(values))
        Path(folder, "nginx.conf").write_text(replicas.MAIN_CONF.format(folder=folder))
        done = subprocess.run(
            [binary, "-t", "-p", folder, "-c", f"{folder}/nginx.conf", "-e", f"{folder}/error.log"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    assert done.returncode == 0, done.stderr


@pytest.mark.slow
def test_a_class_across_two_replicas_survives_losing_one():
    """10 students through nginx: both replicas serve some (2 x 2^-10 that the random keys put all on one), both
    replicas' dashboards agree with the database, and the killed replica's students come back with nothing lost."""
    from store import throwaway

    missing = [
        what
        for what, found in (("nginx", replicas.nginx_binary()), ("PostgreSQL", throwaway.binaries()))
        if found is None
    ]
    if missing:
        message = f"{' and '.join(missing)} not installed (apt-get install nginx postgresql)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    n = 10
    # In a thread of its own: the bench drives its students with asyncio.run(), and in a full test session the
    # browser tests' Playwright (sync API) keeps an event loop running in the main thread.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        r = pool.submit(replicas.run, n, argv=["--students", str(n)]).result()
    assert r["errors"] == 0, r["error_samples"]
    assert r["replicas_serving"] == 2, r["per_replica"]
    assert r["consistent"], r["views"]
    assert r["before"] == r["after"] == {"members": n, "answers": n, "runs": n}
    assert r["failover_students"] >= 1 and r["failover_students"] == max(r["per_replica"].values())
    assert r["lost"] == 0
    assert replicas.final_line(r) == f"replicas: 2 students {n} errors 0 consistent yes failover lost 0"


@pytest.mark.slow
def test_the_full_rerun_mode_runs_on_two_replicas_behind_nginx():
    """``bench.classroom full --replicas 2``: the class's whole-page runs through nginx reach both replicas, which
    share the class store in PostgreSQL; no errors."""
    import argparse

    from bench import classroom
    from store import throwaway

    if replicas.nginx_binary() is None or throwaway.binaries() is None:
        if os.environ.get("CI"):
            pytest.fail("nginx or PostgreSQL not installed")
        pytest.skip("nginx or PostgreSQL not installed (apt-get install nginx postgresql)")
    args = argparse.Namespace(replicas=2, seconds=6.0, seed=0)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # asyncio.run() beside the browser tests' event loop
        row = pool.submit(classroom._run_full_replicated, args, 6).result(timeout=300)
    assert row["errors"] == 0, row["error_samples"]
    assert row["runs"] >= 6 and row["replicas"] == 2
    assert all(seconds > 0 for seconds in row["cpu_s_per_replica"]), row["cpu_s_per_replica"]
