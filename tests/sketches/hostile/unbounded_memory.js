// expect: crashed
// Allocates without bound; the per-page heap cap must stop it, not the machine.
function setup() {
  createCanvas(160, 160, WEBGL);
  const hoard = [];
  while (true) hoard.push(new Array(1 << 20).fill(hoard.length));
}
