// Light: one circle cross-hatched twice; the second pass hatches only
// (noStroke), so hatchStyle names its brush: after noStroke() p5.brush has
// no stroke brush to hatch with.
function setup() {
  createCanvas(240, 240, WEBGL);
  background("#f8f5ef");
  brush.set("HB", "#333333", 1);
  brush.hatch(6, PI / 4);
  brush.circle(0, 0, 80);
  brush.hatch(6, -PI / 4);
  brush.noStroke();
  brush.hatchStyle("HB", "#333333", 1);
  brush.circle(0, 0, 80);
  brush.noHatch();
}
