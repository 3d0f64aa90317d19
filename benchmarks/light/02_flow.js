// Light: 10 strokes along p5.brush's flow field.
function setup() {
  createCanvas(400, 400, WEBGL);
  background("#faf6ee");
  brush.field("waves");
  brush.set("2H", "#2e3a4a", 1.5);
  brush.flowLine(-52, -71, 254, 113);
  brush.flowLine(-107, 68, 277, 108);
  brush.flowLine(-96, 44, 118, 130);
  brush.flowLine(-131, -98, 122, 227);
  brush.flowLine(-43, 7, 149, 241);
  brush.flowLine(-97, -58, 263, 206);
  brush.flowLine(-72, -74, 116, 220);
  brush.flowLine(-61, -25, 154, 56);
  brush.flowLine(-14, 139, 274, 168);
  brush.flowLine(-10, -44, 201, 194);
}
