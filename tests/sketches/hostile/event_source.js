// expect: network_access
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  const events = new window["Event" + "Source"]("http://10.0.0.1/stream");
  events.onmessage = (e) => brush.line(0, 0, Number(e.data), 60);
}
