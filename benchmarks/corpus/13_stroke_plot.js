// Light: hand-made strokes with beginStroke/move/endStroke.
function setup() {
  createCanvas(240, 240, WEBGL);
  background("#faf6ef");
  brush.set("2B", "#3a2e5c", 1.3);
  for (let i = 0; i < 5; i++) {
    brush.beginStroke("curve", -100, -80 + i * 40);
    brush.move(random(-0.3, 0.3), 80, 0.8);
    brush.move(random(-0.5, 0.5), 70, 1.4);
    brush.endStroke(random(-0.4, 0.4), 0.6);
  }
}
