// Light: 8 straight lines.
function setup() {
  createCanvas(400, 400, WEBGL);
  background("#f6f1e7");
  brush.set("charcoal", "#44546a", 1);
  brush.line(35, 159, -97, 5);
  brush.line(-67, 89, 52, -167);
  brush.line(19, 124, -60, 53);
  brush.line(59, -46, -1, -81);
  brush.line(-64, 128, 164, 172);
  brush.line(-95, 51, 86, -4);
  brush.line(28, 132, 24, -50);
  brush.line(-170, -147, -145, 166);
}
