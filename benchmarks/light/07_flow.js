// Light: 12 strokes along p5.brush's flow field.
function setup() {
  createCanvas(400, 400, WEBGL);
  background("#fbf8f1");
  brush.field("curved");
  brush.set("2H", "#2e3a4a", 1);
  brush.flowLine(-164, -84, 226, 186);
  brush.flowLine(-69, 50, 289, 334);
  brush.flowLine(-108, 173, 157, 239);
  brush.flowLine(-109, 67, 265, 70);
  brush.flowLine(-134, -40, 193, 251);
  brush.flowLine(-91, -142, 173, 178);
  brush.flowLine(-96, -89, 135, 221);
  brush.flowLine(-159, -161, 123, 164);
  brush.flowLine(-155, -87, 290, 191);
  brush.flowLine(-67, 172, 241, 158);
  brush.flowLine(-25, -52, 227, 228);
  brush.flowLine(-72, -58, 139, 72);
}
