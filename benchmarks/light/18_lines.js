// Light: 4 straight lines.
function setup() {
  createCanvas(400, 400, WEBGL);
  background("#faf6ee");
  brush.set("pen", "#3d3d3d", 1);
  brush.line(-99, 105, 28, 179);
  brush.line(-120, 89, 109, -11);
  brush.line(-2, 53, 155, -164);
  brush.line(-115, 11, 42, -146);
}
