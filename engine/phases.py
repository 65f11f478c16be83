"""The phases of a match round (engine/match.py): 还贡 (R10.6), 革命 (R9.1), 要头/无头 (R9.4), 宣点 (R5.6), the
play of the :class:`~engine.round.Round`, and ``over``, waiting for the next round. The strings are what the
match's JSON holds."""

from __future__ import annotations

from typing import Final, Literal

Phase = Literal["return", "revolt", "head", "declare", "play", "over"]

P_RETURN: Final = "return"
P_REVOLT: Final = "revolt"
P_HEAD: Final = "head"
P_DECLARE: Final = "declare"
P_PLAY: Final = "play"
P_OVER: Final = "over"  # waits for Match.next_round()
