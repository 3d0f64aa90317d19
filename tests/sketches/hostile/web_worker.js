// expect: worker
function setup() {
  createCanvas(160, 160, WEBGL);
  const w = new Worker("worker.js");
  w.postMessage("go");
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
}
