// Medium: a small red barn: one filled rectangle, pencil roof and door.
function setup() {
  createCanvas(260, 220, WEBGL);
  background("#f6f0e4");
  brush.set("HB", "#3a2a20", 1);
  brush.fill("#b23a48", 95);
  brush.rect(-45, -10, 90, 60);
  brush.noFill();
  brush.polygon([[-55, -10], [0, -55], [55, -10]]);
  brush.rect(-12, 20, 24, 30);
  brush.line(-120, 52, 120, 52);
}
