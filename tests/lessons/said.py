"""How a verdict's sentence opens, for tests that check a lesson states the rule's outcome on its shipped results
(computed from the data, whichever it is: a shipped file with fewer than five seeds is too close to call)."""

from lessons.common.verdicts import Verdict


def opening(v: Verdict) -> str:
    """The first words of ``v.sentence(...)`` for the outcome the rule gave."""
    return {
        "better": f"{v.a_label} beats {v.b_label}",
        "worse": f"{v.a_label} does not beat {v.b_label}",
        "too close": f"{v.a_label} and {v.b_label} are too close to call",
    }[v.outcome]
