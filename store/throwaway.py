"""A throwaway PostgreSQL cluster for the tests and the benchmarks: Debian's ``postgresql`` binaries, a fresh
``initdb`` in a temporary folder, a server on a free loopback port, removed afterwards.

PostgreSQL refuses to run as root, so when we are root the cluster belongs to the ``postgres`` user the Debian
package creates, and its commands run as that user (``runuser``). Not part of the app: the app only ever connects
to a URL it is given.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator


def binaries() -> str | None:
    """The folder of the newest installed ``initdb``/``pg_ctl``, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return os.path.dirname(found[-1]) if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def cluster(database: str = "attention_lab") -> Iterator[str]:
    """Start a cluster; yield its SQLAlchemy URL; stop and remove it. Raises RuntimeError when impossible."""
    folder = binaries()
    if folder is None:
        raise RuntimeError("PostgreSQL's server binaries are not installed (Debian: apt-get install postgresql)")
    root = os.geteuid() == 0
    as_user: list[str] = []
    home = tempfile.mkdtemp(prefix="attention-lab-pg-")
    if root:
        user = pwd.getpwnam("postgres")
        os.chown(home, user.pw_uid, user.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    data, sockets = os.path.join(home, "data"), home
    port = _free_port()

    def run(*command: str) -> None:
        subprocess.run([*as_user, *command], check=True, capture_output=True, text=True, timeout=120)

    try:
        run(f"{folder}/initdb", "-D", data, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--no-sync")
        options = (
            f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        run(f"{folder}/pg_ctl", "-D", data, "-o", options, "-l", os.path.join(home, "server.log"), "-w", "start")
        run(f"{folder}/createdb", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", database)
    except subprocess.CalledProcessError as error:
        shutil.rmtree(home, ignore_errors=True)
        raise RuntimeError(f"could not start PostgreSQL: {error.stderr or error.stdout}") from error
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/{database}"
    finally:
        with contextlib.suppress(subprocess.SubprocessError, OSError):
            run(f"{folder}/pg_ctl", "-D", data, "-m", "immediate", "-w", "stop")
        shutil.rmtree(home, ignore_errors=True)
