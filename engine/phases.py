"""The phases of a match round (engine/match.py): 还贡 (R10.6), 革命 (R9.1), 要头/无头 (R9.4), 宣点 (R5.6), the
play of the :class:`~engine.round.Round`, and ``over``, waiting for the next round. The strings are what the
match's JSON holds.

Before the first lead several seats are asked at once (engine/stage.py), so the match also has a *step*: the
``stage`` (every question that can be judged after the deal is open, answered in any order), ``head`` (the
revolutionary's 对头 chooses 要头 or 无头, after the reveal), ``play`` and ``over``. A question's kind is one
of the four phases before the first lead."""

from __future__ import annotations

from typing import Final, Literal

Phase = Literal["return", "revolt", "head", "declare", "play", "over"]
QuestionKind = Literal["return", "revolt", "head", "declare"]
Step = Literal["stage", "head", "play", "over"]

P_RETURN: Final = "return"
P_REVOLT: Final = "revolt"
P_HEAD: Final = "head"
P_DECLARE: Final = "declare"
P_PLAY: Final = "play"
P_OVER: Final = "over"  # waits for Match.next_round()
S_STAGE: Final = "stage"  # the questions before the first lead, answered in any order
