// Light: 3 straight lines.
function setup() {
  createCanvas(400, 400, WEBGL);
  background("#f6f1e7");
  brush.set("cpencil", "#3d3d3d", 1.5);
  brush.line(158, 131, -87, 16);
  brush.line(-31, 136, 39, 109);
  brush.line(117, -158, 91, 98);
}
