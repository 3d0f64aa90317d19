// Light: 4 pencil arcs.
function setup() {
  createCanvas(400, 400, WEBGL);
  background("#f6f1e7");
  brush.set("2B", "#5a3e2b", 1.5);
  brush.arc(-38, 60, 99, 0.14, 4.76);
  brush.arc(35, 72, 86, 0.88, 3.39);
  brush.arc(-5, -14, 110, 0.32, 6.13);
  brush.arc(18, 1, 34, 1.8, 5.97);
}
