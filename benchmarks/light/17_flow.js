// Light: 12 strokes along p5.brush's flow field.
function setup() {
  createCanvas(400, 400, WEBGL);
  background("#f6f1e7");
  brush.field("waves");
  brush.set("HB", "#44546a", 1);
  brush.flowLine(-147, 66, 223, 125);
  brush.flowLine(-110, 28, 249, 216);
  brush.flowLine(-34, -143, 215, 32);
  brush.flowLine(-100, 84, 182, 254);
  brush.flowLine(-166, 104, 232, 53);
  brush.flowLine(-77, 44, 143, 350);
  brush.flowLine(-42, 6, 137, 251);
  brush.flowLine(-38, -140, 231, 236);
  brush.flowLine(-21, -74, 244, 207);
  brush.flowLine(-41, -45, 281, 191);
  brush.flowLine(-77, -160, 208, 323);
  brush.flowLine(-179, 22, 275, 351);
}
