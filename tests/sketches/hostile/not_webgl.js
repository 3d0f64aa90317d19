// expect: not_webgl
function setup() {
  createCanvas(160, 160);
  background(250);
  brush.set("HB", "#222", 1);
  brush.line(20, 20, 140, 140);
}
