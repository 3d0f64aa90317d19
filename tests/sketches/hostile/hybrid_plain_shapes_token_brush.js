// expect: plain_painting
// Plain p5 shapes do the painting; one brush stroke is there to pass the gate.
function setup() {
  createCanvas(200, 200, WEBGL);
  background("#f6f1e8");
  noStroke();
  fill("#e0603a");
  ellipse(0, -20, 120, 100);
  fill("#3f6d3a");
  rect(-8, 30, 16, 70);
  triangle(-60, 100, 0, 40, 60, 100);
  brush.set("HB", "#222", 1);
  brush.line(-90, 95, 90, 95);
}
