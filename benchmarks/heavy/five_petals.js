// A peach-pink hibiscus at 600 px, painted as a careful person would with the
// allow-list only: five layered petals with bleed and texture, two leaves,
// a wash for the centre and an ink outline. The honest heavy painting the
// render deadline must leave room for (benchmarks/render_deadline.py).
const PAPER = "#f7f1e6";
const PETAL = "#f2a488";
const PETAL_DEEP = "#d9735b";
const LEAF = "#6f8f55";
const INK = "#5a2a2a";

function petal(angle, reach, width) {
  const pts = [];
  for (let i = 0; i <= 10; i++) {
    const t = i / 10;
    const r = reach * t;
    const w = width * sin(PI * t);
    pts.push([r * cos(angle) - w * sin(angle), r * sin(angle) + w * cos(angle)]);
  }
  for (let i = 9; i >= 1; i--) {
    const t = i / 10;
    const r = reach * t;
    const w = -width * sin(PI * t) * 0.8;
    pts.push([r * cos(angle) - w * sin(angle), r * sin(angle) + w * cos(angle)]);
  }
  return pts;
}

function setup() {
  createCanvas(600, 600, WEBGL);
  background(PAPER);

  // Two leaves under the bloom.
  brush.noStroke();
  brush.fill(LEAF, 120);
  brush.fillBleed(0.25);
  brush.fillTexture(0.4, 0.3);
  brush.polygon(petal(2.3, 250, 60));
  brush.polygon(petal(0.6, 230, 55));

  // Five petals, each a first glaze and a deeper second layer.
  for (let i = 0; i < 5; i++) {
    const a = -HALF_PI + (TWO_PI * i) / 5;
    brush.fill(PETAL, 170);
    brush.fillBleed(0.3, "out");
    brush.fillTexture(0.5, 0.4);
    brush.polygon(petal(a, 210, 85));
    brush.fill(PETAL_DEEP, 110);
    brush.fillBleed(0.15);
    brush.polygon(petal(a, 120, 40));
  }

  // The centre, and the outline in ink.
  brush.noFill();
  brush.wash(PETAL_DEEP, 150);
  brush.circle(0, 0, 30);
  brush.noWash();
  brush.set("pen", INK, 1);
  for (let i = 0; i < 5; i++) {
    const a = -HALF_PI + (TWO_PI * i) / 5;
    brush.spline(petal(a, 210, 85), 0.5);
  }
  brush.set("HB", LEAF, 1.5);
  brush.spline([[0, 40], [20, 160], [-10, 290]], 0.5);
}
