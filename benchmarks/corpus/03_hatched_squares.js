// Light: three rectangles hatched at different angles, no fill.
function setup() {
  createCanvas(240, 240, WEBGL);
  background("#f6f2ea");
  brush.set("2B", "#3b3b3b", 1);
  brush.hatch(5, PI / 4);
  brush.rect(-100, -100, 80, 80);
  brush.hatch(7, -PI / 6);
  brush.rect(10, -60, 90, 60);
  brush.hatch(4, PI / 2);
  brush.rect(-60, 20, 110, 70);
  brush.noHatch();
}
