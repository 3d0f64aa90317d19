// Medium: one green shape fill plus hatching in a second pass.
function setup() {
  createCanvas(240, 240, WEBGL);
  background("#f2f4ec");
  brush.noStroke();
  brush.fill("#6a994e", 85);
  brush.beginShape(0.5);
  brush.vertex(-50, 40);
  brush.vertex(0, -60);
  brush.vertex(50, 40);
  brush.vertex(0, 60);
  brush.endShape(true);
  brush.noFill();
  brush.set("2B", "#386641", 1);
  brush.hatch(7, PI / 5);
  brush.rect(40, 50, 60, 40);
  brush.noHatch();
}
