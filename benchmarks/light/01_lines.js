// Light: 3 straight lines.
function setup() {
  createCanvas(400, 400, WEBGL);
  background("#fbf8f1");
  brush.set("2H", "#3d3d3d", 1.5);
  brush.line(21, -1, 41, 79);
  brush.line(-124, 92, -118, -139);
  brush.line(53, -46, -156, 157);
}
