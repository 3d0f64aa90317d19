// Medium: a watercolour rectangle (a pool) with an ink outline.
function setup() {
  createCanvas(240, 200, WEBGL);
  background("#f3efe7");
  brush.set("pen", "#1b2a41", 1);
  brush.fill("#5b8fb9", 80);
  brush.fillTexture(0.4, 0.3);
  brush.rect(-60, -30, 120, 60);
  brush.noFill();
}
