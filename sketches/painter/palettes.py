"""Named palettes, each a set of colour roles every subject can use, plus the
two ways the bad end spoils colour (clashing neon, mud)."""
from __future__ import annotations

from dataclasses import dataclass, fields, replace


@dataclass(frozen=True)
class Palette:
    """Colour roles. `light`/`mid`/`deep` are the subject's main hue (petals,
    fruit, sunset); `leaf`/`leaf_deep` the greens (or the hills); `sky` a pale
    atmosphere; `earth` grounds and tables; `accent` a small complementary note."""

    name: str
    paper: str
    ink: str
    light: str
    mid: str
    deep: str
    leaf: str
    leaf_deep: str
    sky: str
    earth: str
    accent: str

    def colours(self) -> dict[str, str]:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "name"}


PALETTES: dict[str, Palette] = {p.name: p for p in (
    Palette("peach-pink", paper="#f7f1e8", ink="#4a2c2a", light="#f6b7a0", mid="#ee8a76",
            deep="#b8323f", leaf="#7e9b5e", leaf_deep="#3f5a33", sky="#f3d9c8",
            earth="#c49a7a", accent="#e3b23c"),
    Palette("indigo-dusk", paper="#f1efe9", ink="#1f2340", light="#a9b4dc", mid="#5d6bb0",
            deep="#2b2f6b", leaf="#6b8a7a", leaf_deep="#2f4a44", sky="#c9c3e0",
            earth="#6d5a7b", accent="#e8a25c"),
    Palette("crimson-gold", paper="#f8f2e4", ink="#3a1a12", light="#f0a08c", mid="#d6453d",
            deep="#8e1b24", leaf="#8a9a4a", leaf_deep="#4b5a26", sky="#f4dfb4",
            earth="#a86b3c", accent="#e9b949"),
    Palette("lilac-sage", paper="#f5f3ee", ink="#3b3346", light="#d7c4e6", mid="#a98bc9",
            deep="#6b4c8c", leaf="#9cb38f", leaf_deep="#56704d", sky="#e3e4ea",
            earth="#b9a28b", accent="#f1c86b"),
    Palette("sunset-coral", paper="#fbf3e6", ink="#40231d", light="#ffc59e", mid="#f6845f",
            deep="#c4463a", leaf="#6e9c8c", leaf_deep="#325e57", sky="#fde0b8",
            earth="#b9735a", accent="#f7d35c"),
    Palette("sea-glass", paper="#f2f4f0", ink="#1f3b3f", light="#b9dfd6", mid="#5fa8a2",
            deep="#22656b", leaf="#8fb58a", leaf_deep="#3e6b4a", sky="#d8eaf0",
            earth="#8a8f7a", accent="#f0b67f"),
    Palette("ochre-teal", paper="#f6f0e1", ink="#2b2b26", light="#f2d49b", mid="#d9a441",
            deep="#98631c", leaf="#4f9a94", leaf_deep="#1f5c5a", sky="#d4e6e1",
            earth="#8b6a3e", accent="#c0504d"),
    Palette("plum-ink", paper="#f3efe8", ink="#231a2b", light="#d9a7c0", mid="#a24f7e",
            deep="#5e1f4a", leaf="#7f9173", leaf_deep="#3b4a35", sky="#e2d6df",
            earth="#6b4f5a", accent="#e6b655"),
    Palette("lemon-moss", paper="#f8f5e9", ink="#2e2f1f", light="#fbe9a0", mid="#f2c84b",
            deep="#c58b16", leaf="#8fa85a", leaf_deep="#4e6630", sky="#e6eed8",
            earth="#9c8a5a", accent="#7a5fa6"),
    Palette("autumn-rust", paper="#f7efe3", ink="#33211a", light="#f3bf8c", mid="#d9773a",
            deep="#8f3b1d", leaf="#9a9a4e", leaf_deep="#5a5a26", sky="#efd9bd",
            earth="#7a4a2a", accent="#4f6d8a"),
)}

# The bad end's colour: saturated primaries on stark white, each role fighting
# its neighbour (green petals, magenta leaves).
CLASHING = Palette("clashing", paper="#ffffff", ink="#0000ff", light="#00ff66", mid="#ff00cc",
                   deep="#ff6600", leaf="#ff00ff", leaf_deep="#cc00ff", sky="#00ffff",
                   earth="#ffff00", accent="#00ff00")

MUD = "#6b5a4a"


def warm_light(palette: Palette) -> str:
    """The palette's warmer pale note for a sun: its accent when that is warm
    (more red than blue), otherwise its light hue."""
    red, _, blue = _rgb(palette.accent)
    return palette.accent if red > blue else palette.light


def mix(a: str, b: str, t: float) -> str:
    """The hex colour `t` of the way from `a` to `b` (0 gives `a`)."""
    ca, cb = _rgb(a), _rgb(b)
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(ca, cb, strict=True))


def muddied(palette: Palette, amount: float = 0.6) -> Palette:
    """Every colour dragged towards one brown-grey: the overworked, muddy look."""
    changes = {role: mix(c, MUD, amount) for role, c in palette.colours().items()
               if role != "paper"}
    return replace(palette, name=f"{palette.name} (muddied)", **changes)


def dulled(palette: Palette, amount: float = 0.4) -> Palette:
    """Colours pulled towards their own grey: the timid, washed-out look."""
    changes = {}
    for role, colour in palette.colours().items():
        if role == "paper":
            continue
        grey = round(sum(_rgb(colour)) / 3)
        changes[role] = mix(colour, f"#{grey:02x}{grey:02x}{grey:02x}", amount)
    return replace(palette, name=f"{palette.name} (dulled)", **changes)


def _rgb(colour: str) -> tuple[int, int, int]:
    value = colour.lstrip("#")
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)
