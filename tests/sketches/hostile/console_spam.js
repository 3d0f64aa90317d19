// expect: timeout
// Floods the console with large lines for ever.
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  const line = "spam ".repeat(2000);
  for (let i = 0; ; i++) console.log(i, line);
}
