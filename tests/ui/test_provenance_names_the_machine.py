"""The provenance line under shipped results names the CPU and its vector unit where the file recorded them, and
says only "machine" where it did not (never a guessed one)."""

from ui.results import provenance_text


def test_the_cpu_and_vector_unit_are_named_when_recorded():
    machine = {"cpu_count": 2, "torch_threads": 1, "cpu_model": "Example CPU", "cpu_capability": "AVX2"}
    said = provenance_text({"command": "python scripts/x.py", "machine": machine})
    assert "on a 2-core Example CPU, AVX2 kernels with 1 torch thread" in said


def test_an_unrecorded_cpu_is_not_guessed():
    machine = {"cpu_count": 2, "torch_threads": 1, "cpu_model": None, "cpu_capability": None}
    said = provenance_text({"command": "python scripts/x.py", "machine": machine})
    assert "on a 2-core machine with 1 torch thread" in said and "None" not in said
