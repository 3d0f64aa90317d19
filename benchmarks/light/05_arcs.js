// Light: 3 pencil arcs.
function setup() {
  createCanvas(400, 400, WEBGL);
  background("#faf6ee");
  brush.set("rotring", "#1f4e5f", 1);
  brush.arc(-99, 82, 86, 2.42, 5.25);
  brush.arc(40, -20, 120, 0.3, 2.9);
  brush.arc(10, 30, 60, 3.5, 6.1);
}
