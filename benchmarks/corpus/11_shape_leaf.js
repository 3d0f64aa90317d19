// Light: a leaf drawn with beginShape/vertex/endShape and a hatched vein area.
function setup() {
  createCanvas(240, 240, WEBGL);
  background("#f3f5ee");
  brush.set("2B", "#2f5d3a", 1);
  brush.hatch(6, PI / 3);
  brush.beginShape(0.6);
  brush.vertex(0, -100);
  brush.vertex(60, -20, 1.3);
  brush.vertex(20, 80);
  brush.vertex(0, 100, 0.5);
  brush.vertex(-30, 60);
  brush.vertex(-60, -30, 1.2);
  brush.endShape(true);
  brush.noHatch();
  brush.set("pen", "#1f3d26", 1);
  brush.line(0, -95, 0, 95);
}
