// Light: 10 straight lines.
function setup() {
  createCanvas(400, 400, WEBGL);
  background("#f1ece2");
  brush.set("2B", "#2e3a4a", 1);
  brush.line(88, 112, -9, -31);
  brush.line(-97, -2, -96, -105);
  brush.line(-129, 157, 22, -1);
  brush.line(-94, 40, 135, 17);
  brush.line(55, 74, 166, -64);
  brush.line(-87, 133, -21, 89);
  brush.line(-52, -149, -13, 139);
  brush.line(-121, 3, 164, -85);
  brush.line(20, 92, 78, 110);
  brush.line(142, 140, 71, 137);
}
