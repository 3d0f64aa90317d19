// expect: network_access
function setup() {
  createCanvas(160, 160, WEBGL);
  const xhr = new XMLHttpRequest();
  xhr.open("GET", "http://example.com/data");
  xhr.send();
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
}
