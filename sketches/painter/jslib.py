"""JavaScript helper functions a sketch may define: shape builders that return
point lists for brush.polygon() and a contour tracer. A sketch includes only
the helpers it calls, so each picture's code stays short and self-contained.

Shapes are point lists (not drawn directly) so the same geometry can be
glazed, hatched and outlined without recomputing it."""
from __future__ import annotations

HELPERS: dict[str, str] = {
    "bloom": """\
// A bloom seen from above: `lobes` rounded petals around (cx, cy), pinched to
// `pinch` of the radius between petals, edges rippled by `ruffle`.
function bloom(cx, cy, lobes, radius, turn, pinch, ruffle) {
  const steps = max(48, lobes * 8);
  const pts = [];
  for (let i = 0; i < steps; i++) {
    const a = turn + (TWO_PI * i) / steps;
    const lobe = pow(abs(cos((lobes * (a - turn)) / 2)), 0.7);
    const r = radius * (pinch + (1 - pinch) * lobe) * (1 + ruffle * sin(lobes * 3 * a));
    pts.push([cx + r * cos(a), cy + r * sin(a)]);
  }
  return pts;
}""",
    "petal": """\
// A pointed petal or leaf growing from (x, y) along `angle`: `len` long, `wid`
// wide at its widest, its midrib bent sideways by `bend`.
function petal(x, y, angle, len, wid, bend) {
  const side = [];
  for (let i = 0; i <= 12; i++) {
    const t = i / 12;
    side.push([t * len, (wid / 2) * pow(sin(PI * t), 0.8), bend * len * t * t]);
  }
  const local = side.map(([u, v, b]) => [u, b - v])
    .concat(side.slice(1, -1).reverse().map(([u, v, b]) => [u, b + v]));
  return local.map(([u, v]) => [x + u * cos(angle) - v * sin(angle),
                                y + u * sin(angle) + v * cos(angle)]);
}""",
    "blob": """\
// An irregular round shape (fruit, stone, cloud): an ellipse whose radius
// swells and dips `bumps` times by `wobble`.
function blob(cx, cy, rx, ry, wobble, bumps, phase) {
  const pts = [];
  for (let i = 0; i < 36; i++) {
    const a = (TWO_PI * i) / 36;
    const k = 1 + wobble * sin(bumps * a + phase);
    pts.push([cx + rx * k * cos(a), cy + ry * k * sin(a)]);
  }
  return pts;
}""",
    "hills": """\
// A band of land across the canvas: a skyline `amp` high above `baseY` made of
// two sine waves, closed along the bottom edge so it can be filled.
function hills(baseY, amp, waves, phase) {
  const half = width / 2;
  const pts = [];
  for (let i = 0; i <= 40; i++) {
    const t = i / 40;
    const lift = 0.6 * sin(TWO_PI * waves * t + phase) + 0.4 * sin(TWO_PI * waves * 2.3 * t);
    pts.push([-half + 2 * half * t, baseY - amp * (0.5 + 0.5 * lift)]);
  }
  pts.push([half, half], [-half, half]);
  return pts;
}""",
    "crown": """\
// A lotus-like crown of `petals` pointed petals fanned above (cx, cy): tips at
// `radius` (the middle ones tallest), notches at `notch` of it, a shallow bowl
// underneath.
function crown(cx, cy, petals, radius, notch) {
  const pts = [];
  const steps = petals * 10;
  for (let i = 0; i <= steps; i++) {
    const a = PI + (PI * i) / steps;
    const across = ((i / steps) * petals) % 1;
    const tip = pow(1 - abs(2 * across - 1), 0.7);
    const r = radius * (0.8 + 0.2 * sin((PI * i) / steps)) * (notch + (1 - notch) * tip);
    pts.push([cx + r * cos(a), cy + r * sin(a)]);
  }
  for (let i = 1; i < 8; i++) {
    const a = (PI * i) / 8;
    pts.push([cx + radius * 0.5 * cos(a), cy + radius * 0.2 * sin(a)]);
  }
  return pts;
}""",
    "slab": """\
// A soft-edged rectangle: its edges wander by `wobble`, as a brushed band does.
function slab(x, y, w, h, wobble) {
  const pts = [];
  for (let i = 0; i <= 10; i++) pts.push([x + (w * i) / 10, y + wobble * sin(i * 1.7)]);
  for (let i = 1; i < 4; i++) pts.push([x + w + wobble * sin(i * 2.3), y + (h * i) / 4]);
  for (let i = 10; i >= 0; i--) pts.push([x + (w * i) / 10, y + h + wobble * sin(i * 1.3)]);
  for (let i = 3; i > 0; i--) pts.push([x + wobble * sin(i * 2.9), y + (h * i) / 4]);
  return pts;
}""",
    "vessel": """\
// A jug, vase or bowl seen from the side: half-widths `profile` from rim to
// foot, spread evenly over `height` below `top` and mirrored about cx.
function vessel(cx, top, height, profile) {
  const right = profile.map((w, i) => [cx + w, top + (height * i) / (profile.length - 1)]);
  const left = right.map(([x, y]) => [2 * cx - x, y]).reverse();
  return right.concat(left);
}""",
    "outline": """\
// Trace a closed shape as one continuous stroke with the current brush.
function outline(pts, curvature) {
  brush.beginShape(curvature);
  for (const [x, y] of pts) brush.vertex(x, y);
  brush.endShape(true);
}""",
}


def helper_source(name: str) -> str:
    try:
        return HELPERS[name]
    except KeyError:
        raise KeyError(f"no JavaScript helper named {name!r}; known: {sorted(HELPERS)}") from None
