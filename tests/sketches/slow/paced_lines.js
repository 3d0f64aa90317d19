// An honest painting far slower than a short deadline: each of its 3,000 pencil
// strokes follows a direction worked out the long way (a sum of noise), about
// 5 ms a stroke here, so the whole takes some 15 s. The strokes come slower
// than SwiftShader draws them, so little is queued when the deadline stops it.
function setup() {
  createCanvas(120, 100, WEBGL);
  background("#f6f1e8");
  brush.set("HB", "#2f2a26", 1);
  for (let i = 0; i < 3000; i++) {
    let turn = 0;
    for (let k = 0; k < 20000; k++) turn += noise(i * 0.05, k * 0.01);
    const x = random(-55, 55);
    const y = random(-45, 45);
    const a = turn * 0.01;
    brush.line(x, y, x + 30 * cos(a), y + 30 * sin(a));
  }
}
