// p5.brush 1.x at 1,000 px, as the 1.x sketchbooks paint: a grid of bled,
// textured tiles in three alternating colours, each outlined in pencil, and
// a few flow lines over them. Every colour change makes 1.x blend its mask
// into the canvas, so this is the painting whose time those blends set
// (paint_speed.js; benchmarks/paint_by_construction.py --groups heavy).
const PAPER = "#f4efe4";
const INKS = ["#c8553d", "#2d6a8e", "#e0a458"];

function setup() {
  createCanvas(1000, 1000, WEBGL);
  angleMode(DEGREES);
  translate(-width / 2, -height / 2);
  background(PAPER);
  const side = 150;
  let k = 0;
  for (let y = 60; y + side <= height - 40; y += side + 30) {
    for (let x = 60; x + side <= width - 40; x += side + 30) {
      brush.noStroke();
      brush.fill(INKS[k % INKS.length], 70);
      brush.bleed(0.2);
      brush.fillTexture(0.4, 0.3);
      brush.rect(x, y, side, side);
      brush.noFill();
      brush.set("HB", "#3b3b3b", 1);
      brush.rect(x - 4, y - 4, side + 8, side + 8);
      k += 1;
    }
  }
  brush.field("seabed");
  brush.set("marker", "#1d3557", 1);
  for (let i = 0; i < 6; i++) brush.flowLine(80, 120 + i * 140, 800, 0);
  brush.noField();
}
