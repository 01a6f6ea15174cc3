"""Check-yourself exercises, checked automatically.

An exercise's answer is computed by the lesson's own code when the lesson builds its list, never typed in,
so changing the lesson's numbers changes the expected answers with them.

An exercise asks for a prediction before something is run, or for a computation by hand. Feedback never says
"too high" or "too low" (that turns a question into a bisection game): a wrong answer is told it is wrong and
shown the answer with its worked explanation, the same explanation a right answer gets.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Feedback:
    correct: bool
    message: str


@dataclass(frozen=True)
class Exercise:
    key: str  # unique, namespaced per lesson ("queries_keys_values.ex1"); also the widget key
    prompt: str  # markdown; never contains user text
    answer: float | int  # the number, or the index of the right choice
    explanation: str  # the worked solution, shown once the student has answered (right or wrong)
    tolerance: float = 0.0  # for numeric answers: |response - answer| <= tolerance counts as right
    choices: tuple[str, ...] = ()  # non-empty for a multiple-choice question
    hint: str = ""  # said after a wrong answer, before the worked solution (the usual slip, if there is one)

    @property
    def is_choice(self) -> bool:
        return bool(self.choices)

    def check(self, response: float | int | str | None) -> Feedback:
        """Grade a response: a number, or for a choice question its index or its text."""
        if response is None or (isinstance(response, str) and not response.strip()):
            return Feedback(False, "Give an answer first.")
        if self.is_choice:
            index = self.choices.index(response) if response in self.choices else response
            if not isinstance(index, int) or not 0 <= index < len(self.choices):
                return Feedback(False, "Pick one of the options.")
            if index == self.answer:
                return Feedback(True, f"Right. {self.explanation}")
            return Feedback(False, self._wrong(f"“{self.choices[int(self.answer)]}”"))
        try:
            value = float(response)
        except (TypeError, ValueError):
            return Feedback(False, "That is not a number.")
        if not math.isfinite(value):
            return Feedback(False, "That is not a finite number.")
        if abs(value - float(self.answer)) <= self.tolerance:
            return Feedback(True, f"Right: {self.shown_answer}. {self.explanation}")
        return Feedback(False, self._wrong(self.shown_answer))

    @property
    def shown_answer(self) -> str:
        """The number as feedback writes it: a whole number without decimals, others to three decimals."""
        value = float(self.answer)
        return f"{int(value):,}" if value.is_integer() else f"{value:.3f}"

    def _wrong(self, answer: str) -> str:
        """A wrong answer's feedback: no direction to bisect on; the answer and its worked explanation."""
        hint = f" {self.hint}" if self.hint else ""
        return f"Not quite.{hint} Worked answer: {answer}. {self.explanation}"
