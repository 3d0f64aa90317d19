// expect: network_access
// A stylesheet that @imports one from another host and loads a font there.
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  const style = document.createElement("style");
  style.textContent = '@import url("http://10.0.0.1/s.css");' +
    '@font-face{font-family:x;src:url("http://10.0.0.1/f.woff")}body{font-family:x}';
  document.head.appendChild(style);
  document.body.textContent = "x";
}
