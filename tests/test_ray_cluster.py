"""A real two-node Ray cluster on this machine runs an audit through the CLI with the local executor's results.

The cluster is started with the ``ray`` CLI of the venv: a head node with one CPU and a ``head_node`` resource, and a
second node that joins it with one CPU and a ``worker_node`` resource, each with its own ``--temp-dir``. The audit
runs in a subprocess, ``python -m bias_core audit --executor ray --ray-address …``, exactly as a user would run it.
Each summarizer actor takes one CPU, so the two actors must land on different nodes; the test reads Ray's task events
to check that both nodes ran summarization batches, then compares the stored inputs, summaries
(timing excluded) and measures with those of ``--executor local``.

Teardown stops only this cluster's processes, found by their temp folder: ``ray stop --force`` would also kill any
other Ray on the machine (another test run, another user's cluster), since it matches processes by name.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bias_core.runs.store import RunStore

pytest.importorskip("ray")

REPO = Path(__file__).resolve().parent.parent
RAY = Path(sys.executable).with_name("ray")
# The demo articles with enough inputs (16 identity + 16 × 20 all-female/all-male) for two 256-input batches per
# extractive summarizer, so that the pool of two actors hands each actor work; two perturbation chunks of 8 articles.
CONFIG = """
name = "two-node ray cluster"
seed = 0

[corpus]
path = "{corpus}"

[[perturbations]]
kind = "identity"

[[perturbations]]
kind = "gender-glob"
samples = 10

[[summarizers]]
name = "lead-3"

[[summarizers]]
name = "sexist-female"

[measures]
names = ["distinguishability_count"]
bootstrap = 100
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Cluster:
    address: str
    temp_root: Path
    env: dict[str, str]  # what a process needs to join: the cluster's own auth token, no inherited RAY_ADDRESS


def _ray_start(arguments: list[str], env: dict[str, str]) -> None:
    done = subprocess.run([str(RAY), "start", *arguments, "--disable-usage-stats"], env=env, capture_output=True,
                          text=True, timeout=180)
    assert done.returncode == 0, f"ray start failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


def _stop_cluster(temp_root: Path) -> None:
    """Terminate the processes of the cluster whose temp folders are under ``temp_root`` (and their children)."""
    import psutil

    owners = []
    for process in psutil.process_iter(["cmdline"]):
        try:
            if any(str(temp_root) in part for part in process.info["cmdline"] or []):
                owners.append(process)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    processes = {process.pid: process for process in owners}
    for process in owners:
        try:
            processes.update({child.pid: child for child in process.children(recursive=True)})
        except psutil.NoSuchProcess:
            continue
    for process in processes.values():
        try:
            process.send_signal(signal.SIGTERM)
        except psutil.NoSuchProcess:
            continue
    _, alive = psutil.wait_procs(list(processes.values()), timeout=10)
    for process in alive:
        try:
            process.kill()
        except psutil.NoSuchProcess:
            continue
    psutil.wait_procs(alive, timeout=10)


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Cluster]:
    # A short folder of its own: Ray's socket paths under it must stay within AF_UNIX's 107 bytes, which pytest's
    # temporary folders (longer under pytest-xdist, ".../popen-gw1/...") overrun.
    temp_root = Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp"))
    port = free_port()
    # A token of this cluster's own, so that neither ~/.ray/auth_token nor another cluster's settings matter.
    token = temp_root / "auth_token"
    token.write_text(secrets.token_hex(32))
    env = {key: value for key, value in os.environ.items() if not key.startswith("RAY_")}
    env.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=str(token))
    try:
        _ray_start(["--head", "--node-ip-address=127.0.0.1", f"--port={port}", "--num-cpus=1",
                    '--resources={"head_node": 1}', f"--temp-dir={temp_root / 'head'}", "--include-dashboard=false",
                    f"--dashboard-port={free_port()}", f"--dashboard-agent-listen-port={free_port()}"], env)
        _ray_start([f"--address=127.0.0.1:{port}", "--node-ip-address=127.0.0.1", "--num-cpus=1",
                    '--resources={"worker_node": 1}', f"--temp-dir={temp_root / 'worker'}",
                    f"--dashboard-agent-listen-port={free_port()}"], env)
        yield Cluster(f"127.0.0.1:{port}", temp_root, env)
    finally:
        _stop_cluster(temp_root)
        shutil.rmtree(temp_root, ignore_errors=True)


def _audit(config: Path, folder: Path, env: dict[str, str], *extra: str) -> tuple[RunStore, str]:
    """Run the audit CLI in a subprocess into its own store and cache; return the store and the run id."""
    store = folder / "runs.sqlite"
    env = {**env, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-m", "bias_core", "audit", "--config", str(config), "--store", str(store),
                           "--cache", str(folder / "cache.sqlite"), "--quiet", *extra],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"audit {' '.join(extra)} failed:\n{done.stderr[-3000:]}"
    return RunStore(store), done.stdout.strip().splitlines()[-1]


def _work_per_node(cluster: Cluster) -> dict[str, dict[str, int]]:
    """Tasks run per node (named by its custom resource): perturbation chunks and summarization batches.

    Read from the task events Ray keeps in its control store. The public state API (``ray.util.state``) needs the
    dashboard of ``ray[default]``, which is not installed, so this reads them through ``ray._private.state``.
    """
    script = f"""
import json, ray
from ray._private import state
ray.init(address={cluster.address!r}, log_to_driver=False, configure_logging=False)
nodes = {{n["NodeID"]: ("head_node" if "head_node" in n["Resources"] else "worker_node") for n in ray.nodes()}}
work = {{}}
for event in state.state._get_all_task_events():
    name = event.task_info.name
    kind = ("summarize" if name.endswith("_SummarizerActor.run")
            else "perturb" if name.rsplit(".", 1)[-1] in ("run_shared", "_perturb_chunk") else None)
    node = event.state_updates.node_id.hex() if event.HasField("state_updates") else ""
    if kind and node in nodes:
        counts = work.setdefault(nodes[node], {{}})
        counts[kind] = counts.get(kind, 0) + 1
print(json.dumps(work))
"""
    done = subprocess.run([sys.executable, "-c", script], env=cluster.env, capture_output=True, text=True,
                          timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def comparable(summary) -> dict:
    """A summary without its timing, the one field that may differ between two runs."""
    record = summary.to_dict()
    record["meta"] = {key: value for key, value in record.get("meta", {}).items() if key != "seconds"}
    return record


def test_an_audit_on_a_two_node_ray_cluster_uses_both_nodes_and_matches_the_local_executor(ray_cluster, tmp_path):
    config = tmp_path / "audit.toml"
    config.write_text(CONFIG.format(corpus=(REPO / "data" / "demo" / "news.jsonl").as_posix()))
    (tmp_path / "ray").mkdir()
    (tmp_path / "local").mkdir()

    started = time.perf_counter()
    ray_store, ray_run = _audit(config, tmp_path / "ray", ray_cluster.env,
                                "--executor", "ray", "--ray-address", ray_cluster.address)
    ray_seconds = time.perf_counter() - started
    local_store, local_run = _audit(config, tmp_path / "local", ray_cluster.env, "--executor", "local")

    work = _work_per_node(ray_cluster)
    assert set(work) == {"head_node", "worker_node"}, work
    assert all(counts.get("summarize", 0) >= 1 for counts in work.values()), work  # batches on both nodes
    assert sum(counts.get("perturb", 0) for counts in work.values()) >= 2, work  # one task per 8 originals

    assert ray_store.get_run(ray_run).status == local_store.get_run(local_run).status == "completed"
    inputs = [i.to_dict() for i in ray_store.inputs(ray_run)]
    assert len(inputs) > 256 and inputs == [i.to_dict() for i in local_store.inputs(local_run)]
    ray_summaries = [comparable(s) for s in ray_store.summaries(ray_run)]
    assert len(ray_summaries) == 2 * len(inputs)
    assert ray_summaries == [comparable(s) for s in local_store.summaries(local_run)]
    assert [m.to_dict() for m in ray_store.measures(ray_run)] == [m.to_dict() for m in local_store.measures(local_run)]
    print(f"audit on the two-node cluster: {ray_seconds:.1f} s; tasks per node: {work}")
