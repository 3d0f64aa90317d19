// Light: 4 straight lines.
function setup() {
  createCanvas(400, 400, WEBGL);
  background("#f6f1e7");
  brush.set("marker", "#1f4e5f", 1);
  brush.line(-110, 37, 98, -117);
  brush.line(-52, -29, 124, -163);
  brush.line(157, -37, -20, -83);
  brush.line(-85, 121, -81, -102);
}
