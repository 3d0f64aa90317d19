// expect: network_access
// A fetch hidden in base64 and run through the Function constructor:
// atob('ZmV0Y2goImh0dHA6Ly8xMC4wLjAuMS9wYWxldHRlLmpzb24iKQ==') is
// fetch("http://10.0.0.1/palette.json").
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  try {
    new Function(atob("ZmV0Y2goImh0dHA6Ly8xMC4wLjAuMS9wYWxldHRlLmpzb24iKQ=="))();
  } catch (e) { /* carry on painting */ }
  brush.line(-60, 60, 60, -60);
}
