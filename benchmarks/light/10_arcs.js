// Light: 5 pencil arcs.
function setup() {
  createCanvas(400, 400, WEBGL);
  background("#faf6ee");
  brush.set("2H", "#1f4e5f", 1.5);
  brush.arc(-86, -75, 49, 1.51, 6.07);
  brush.arc(44, 32, 30, 2.37, 4.55);
  brush.arc(-30, 9, 105, 0.5, 5.87);
  brush.arc(86, 40, 86, 0.95, 4.77);
  brush.arc(60, 97, 21, 2.19, 5.07);
}
