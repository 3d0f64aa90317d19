// expect: network_access
// An SVG <image> pointing at another host, built from markup.
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  const holder = document.createElement("div");
  holder.innerHTML = '<svg><image href="http://10.0.0.1/t.png" width="9" height="9"/></svg>';
  document.body.appendChild(holder);
}
