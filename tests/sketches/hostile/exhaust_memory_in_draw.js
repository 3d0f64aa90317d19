// expect: crashed
// Paints first, then exhausts memory frame by frame in draw(): its page dies
// with the picture made, in every browser it runs in. Were that `unavailable`
// (no reward, advantage 0) a policy would learn it to escape a poor score.
const hoard = [];
function setup() {
  createCanvas(160, 160, WEBGL);
  background(250);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  brush.line(-60, 60, 60, -60);
}
function draw() {
  for (let i = 0; i < 64; i++) hoard.push(new Array(1 << 20).fill(frameCount + i));
}
