// Medium: a pale watercolour moon on a dark ground with ink stars.
function setup() {
  createCanvas(240, 240, WEBGL);
  background("#1c2541");
  brush.noStroke();
  brush.fill("#e9e3c9", 110);
  brush.circle(30, -30, 30);
  brush.noFill();
  brush.set("pen", "#f2f2f2", 0.8);
  for (let i = 0; i < 10; i++) {
    const x = random(-110, 110), y = random(-110, 110);
    brush.line(x - 3, y, x + 3, y);
    brush.line(x, y - 3, x, y + 3);
  }
}
