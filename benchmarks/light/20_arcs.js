// Light: 5 pencil arcs.
function setup() {
  createCanvas(400, 400, WEBGL);
  background("#faf6ee");
  brush.set("marker", "#2e3a4a", 1);
  brush.arc(9, 61, 51, 2.97, 3.96);
  brush.arc(-29, -47, 80, 1.75, 4.42);
  brush.arc(-35, 10, 115, 2.2, 5.23);
  brush.arc(-14, -47, 36, 1.38, 5.63);
  brush.arc(33, 32, 112, 1.48, 4.45);
}
