"""The lesson's exercises: computed, predicted before the results, never read off the page."""

from lessons import multi_head_attention
from lessons.multi_head_attention import head_counts, split
from tests.lessons.multi_head_attention.made_up_results import fake_results


def test_exercises_are_computed_predicted_before_the_results_and_never_read_off_the_page(rule_on_made_up_seeds):
    ex1, ex2 = split.by_hand()
    big = (split.BIG_D_MODEL, split.DK_HEADS)
    assert big[0] not in split.D_MODEL_CHOICES  # not on the sliders: worked by hand, not read off
    assert ex1.answer == big[0] // big[1] == 32 and not ex1.check(64).correct  # not the paper's d_k = 64
    assert ex2.answer == 4 * (big[0] ** 2 + big[0]) and f"{ex2.answer:,}" in ex2.explanation
    ex3 = split.split_prediction()
    assert ex3.choices[ex3.answer] == "stay the same" and "1,050,624 with 1 head" in ex3.explanation
    assert ex3.prompt.startswith("**Predict")
    ex4 = head_counts.alignment_prediction(fake_results())  # worst head 0.9 (h = 1) … 0.6 (h = 8)
    assert ex4.choices[ex4.answer].startswith("less often") and ex4.prompt.startswith("**Predict")
    assert "60% ± 0% (n = 2)" in ex4.explanation and "free to read something else" in ex4.explanation
    swapped = head_counts.alignment_prediction(fake_results(worst=(0.6, 0.7, 0.8, 0.9)))
    assert swapped.choices[swapped.answer].startswith("more often")  # the numbers turned round: so does the answer
    assert "free to read something else" not in swapped.explanation
    close = head_counts.alignment_prediction(fake_results(worst=(0.8, 0.8, 0.8, 0.8)))
    assert close.choices[close.answer].startswith("about as often")
    every = multi_head_attention.every_exercise(fake_results())
    assert [e.key for e in every] == [f"multi_head_attention.ex{i}" for i in (1, 2, 3, 4)]
    assert len(multi_head_attention.every_exercise()) >= 3  # at least three even without the shipped results
    for e in every:  # no "read the table" hints
        assert "Read" not in e.hint and "table above" not in e.prompt
