// A hatched still life: a bowl and a pear shaded with cross-hatching.
function setup() {
  createCanvas(400, 300, WEBGL);
  background("#f6f1e8");
  brush.set("HB", "#2f2a26", 1);
  brush.hatch(5, 0.6);
  brush.circle(-50, 30, 60);
  brush.hatch(6, -0.7);
  brush.rect(40, -20, 80, 100);
  brush.noHatch();
  brush.set("pen", "#2f2a26", 1.2);
  for (let x = -180; x < 180; x += 8) brush.line(x, 100, x + 30, 140);
  for (let x = -180; x < 180; x += 8) brush.line(x + 30, 100, x, 140);
}
