// p5.brush 1.x: brush.load() in setup, the drawing in draw() with noLoop().
function setup() {
  createCanvas(360, 300, WEBGL);
  brush.load();
  angleMode(DEGREES);
}
function draw() {
  background(245, 240, 228);
  brush.scaleBrushes(1.2);
  brush.set("HB", "#202030", 1);
  for (let i = 0; i < 10; i++) {
    brush.line(-150, -120 + i * 24, 150, -110 + i * 24 + random(-6, 6));
  }
  brush.setHatch("pen", "#4060a0", 0.8);
  brush.hatch(6, 30);
  brush.circle(60, 40, 70);
  brush.noHatch();
  noLoop();
}
