// expect: worker
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  try {
    navigator.serviceWorker.register("/sw.js").catch(() => {});
  } catch (e) { /* carry on */ }
}
