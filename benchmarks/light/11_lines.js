// Light: 7 straight lines.
function setup() {
  createCanvas(400, 400, WEBGL);
  background("#f6f1e7");
  brush.set("rotring", "#1f4e5f", 1);
  brush.line(-40, 146, 97, 172);
  brush.line(-142, 98, 33, 76);
  brush.line(-19, -160, -121, 83);
  brush.line(-139, -103, 46, 143);
  brush.line(-174, 90, 37, 122);
  brush.line(158, -62, -38, -33);
  brush.line(5, 6, 79, -125);
}
