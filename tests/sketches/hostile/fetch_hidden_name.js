// expect: network_access
// The name is built at run time, so only the in-page trap can see it.
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  const name = ["fe", "tch"].join("");
  window[name]("http://10.0.0.1/x");
}
