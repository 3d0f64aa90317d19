// Light: 5 straight lines.
function setup() {
  createCanvas(400, 400, WEBGL);
  background("#faf6ee");
  brush.set("2B", "#7a2e3a", 1);
  brush.line(-9, 101, -31, 167);
  brush.line(147, -35, 171, -7);
  brush.line(67, -149, 100, 102);
  brush.line(-107, -102, -159, -35);
  brush.line(-92, 69, 120, -56);
}
