// expect: network_access
function setup() {
  createCanvas(160, 160, WEBGL);
  const socket = new WebSocket("wss://example.com/live");
  socket.onopen = () => socket.send("hi");
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
}
