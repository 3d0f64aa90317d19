// Light: 4 strokes along p5.brush's flow field.
function setup() {
  createCanvas(400, 400, WEBGL);
  background("#f1ece2");
  brush.field("seabed");
  brush.set("rotring", "#1f4e5f", 1);
  brush.flowLine(-23, -94, 261, 99);
  brush.flowLine(-2, 35, 243, 117);
  brush.flowLine(-134, 163, 218, 213);
  brush.flowLine(-82, -38, 196, 113);
}
