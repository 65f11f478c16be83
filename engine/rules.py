"""House rules and presets (R12). Every house rule of RULES.md is a key here, with its default."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from functools import cache
from typing import Any

# R10.1: the default order in which tribute debts are paid; S3/S4 give men > shao > dian > luo.
DEFAULT_TRIBUTE_ORDER = ("quan", "dian", "shao", "men", "luo")
DEBT_KINDS = DEFAULT_TRIBUTE_ORDER
PRESETS = ("qingdao", "classic", "zhangqiu")  # R12; the first is the default


@dataclass(frozen=True)
class Rules:
    two_big_kill_one: bool = False  # R2.5
    tie_two: bool = True  # R2.6
    single_two_gouji: bool = True  # R3.1
    dian_si: bool = True  # R5.4
    dian_gong: bool = True  # R5.5
    xuan_dian: bool = True  # R5.6
    burn_requires_open: bool = False  # R6.1
    burn_feasibility: bool = True  # R6.3
    bie_san: bool = True  # R8.1
    kang_gong: bool = True  # R10.5
    return_tribute: bool = True  # R10.6
    zhangqiu: bool = False  # R1.5
    tribute_order: tuple[str, ...] = DEFAULT_TRIBUTE_ORDER  # R10.1

    @classmethod
    def preset(cls, name: str = "qingdao") -> Rules:
        if name == "qingdao":
            return cls()
        if name == "classic":
            return cls(bie_san=False, dian_si=False, xuan_dian=False, dian_gong=False)
        if name == "zhangqiu":
            return cls(zhangqiu=True)
        raise ValueError(f"unknown preset {name!r} (qingdao, classic, zhangqiu)")

    def preset_name(self) -> str | None:
        """The preset these rules are exactly (R12), or None for a mix of house rules."""
        return next((name for name in PRESETS if Rules.preset(name) == self), None)

    # R5.5: without 点贡 opening has no tribute, so 开点发4 and 宣点 have no effect.
    @property
    def dian_si_active(self) -> bool:
        return self.dian_si and self.dian_gong

    @property
    def xuan_dian_active(self) -> bool:
        return self.xuan_dian and self.dian_gong

    def with_(self, **changes: Any) -> Rules:
        return replace(self, **changes)

    def set_key(self, key: str, value: bool | str) -> Rules:
        """Set one house rule by name, as `set KEY=on` in a transcript or /settings in the bot."""
        names = {f.name: f for f in fields(self)}
        if key not in names:
            raise KeyError(f"unknown house rule {key!r}")
        if key == "tribute_order":
            order = tuple(str(value).split(","))
            if sorted(order) != sorted(DEFAULT_TRIBUTE_ORDER):
                raise ValueError(f"tribute_order must order {','.join(DEFAULT_TRIBUTE_ORDER)}")
            return replace(self, tribute_order=order)
        if not isinstance(value, bool):
            raise ValueError(f"{key} takes on or off")
        change: dict[str, Any] = {key: value}  # a bool field, by the name checked above
        return replace(self, **change)

    def to_dict(self) -> dict[str, Any]:
        # Every saved move writes the rules twice (the match's and the round's): dataclasses.asdict was a
        # tenth of a move's CPU (benches.storage, cProfile). A fresh dict each time, the caller's to keep.
        d = dict(_as_dict(self))
        d["tribute_order"] = list(self.tribute_order)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Rules:
        d = dict(d)
        if "tribute_order" in d:
            d["tribute_order"] = tuple(d["tribute_order"])
        return cls(**d)

    @classmethod
    def key_names(cls) -> list[str]:
        return [f.name for f in fields(cls)]


@cache
def _as_dict(rules: Rules) -> dict[str, Any]:
    return {f.name: getattr(rules, f.name) for f in fields(rules)}
