// p5.brush 2.x with helpers named like p5's own and a shadowed global.
let palette = ["#e63946", "#457b9d", "#1d3557"];
function red() { return palette[0]; }
function blue() { return palette[1]; }
let status = "start";
function setup() {
  createCanvas(300, 300, WEBGL);
  background("#f1faee");
  brush.noStroke();
  brush.fill(red(), 60);
  brush.circle(-40, -20, 70);
  brush.fill(blue(), 60);
  brush.circle(50, 30, 60);
  brush.noFill();
  brush.set("HB", palette[2], 1);
  brush.rect(-120, -120, 240, 240);
  status = "done";
}
