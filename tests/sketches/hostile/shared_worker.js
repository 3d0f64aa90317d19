// expect: worker
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  const w = new SharedWorker("data:text/javascript,onconnect=(e)=>e.ports[0].postMessage(1)");
  w.port.start();
}
