// p5.brush 2.x sized by the window, a flow field of lines.
function setup() {
  createCanvas(windowWidth, windowHeight, WEBGL);
  background(250);
  brush.field("waves");
  brush.set("2B", "#2c3e50", 1.5);
  for (let i = 0; i < 14; i++) brush.flowLine(-width / 2 + 40, -height / 2 + 60 + i * 70, width - 80, 0);
}
