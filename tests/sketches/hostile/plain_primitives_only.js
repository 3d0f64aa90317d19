// expect: plain_primitives_only, no_brush_painting
// Looks like a painting, but no p5.brush call lays any paint.
function setup() {
  createCanvas(160, 160, WEBGL);
  background("#f6f1e8");
  fill("#f2a488");
  noStroke();
  ellipse(0, -10, 90, 70);
  fill("#5c7d4a");
  rect(-5, 20, 10, 60);
}
