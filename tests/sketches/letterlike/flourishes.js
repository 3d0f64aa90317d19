// Calligraphic flourishes: looping ink curves like the swashes of a penman,
// with no letters in them.
function setup() {
  createCanvas(400, 300, WEBGL);
  background("#f7f2e7");
  brush.set("pen", "#1f2a44", 2.4);
  brush.spline([[-170, 20], [-120, -60], [-60, 40], [0, -50], [60, 40], [120, -60], [170, 20]], 0.7);
  brush.spline([[-150, 60], [-100, 110], [-20, 70], [40, 120], [150, 70]], 0.8);
  brush.set("marker", "#8c2f39", 1.6);
  for (let i = 0; i < 5; i++) {
    const x = -120 + i * 60;
    brush.spline([[x, -100], [x + 20, -130], [x + 40, -100], [x + 20, -80], [x, -100]], 0.9);
  }
}
